import type { OpenAPIObject } from '@nestjs/swagger';
import { applyEventSchemas } from './event-openapi';

class BlogResponse {}
class DeletedBlogResponse {}
class CommentResponse {}

const ID = { type: 'string', pattern: '^[0-9]+$' };
const OCCURRED_AT = { type: 'string', format: 'date-time' };

/** A document as Swagger builds it from the `EventResponse` class: its three common properties. */
const document = (): OpenAPIObject => ({
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {},
  components: {
    schemas: {
      EventResponse: { type: 'object', properties: { id: ID, type: { type: 'string' }, occurredAt: OCCURRED_AT } },
    },
  },
});

describe('applyEventSchemas', () => {
  const resources = [
    {
      resource: 'blog',
      types: ['blog.created', 'blog.deleted'],
      schemas: [BlogResponse, DeletedBlogResponse],
      description: 'B',
    },
    { resource: 'comment', types: ['comment.created'], schemas: [CommentResponse], description: 'C' },
  ];

  it('makes the enum of every registered type', () => {
    const doc = document();

    applyEventSchemas(doc, resources);

    expect(doc.components?.schemas?.EventType).toMatchObject({
      type: 'string',
      enum: ['blog.created', 'blog.deleted', 'comment.created'],
    });
  });

  it.each([
    [
      'BlogEventResponse',
      'blog',
      ['blog.created', 'blog.deleted'],
      {
        oneOf: [{ $ref: '#/components/schemas/BlogResponse' }, { $ref: '#/components/schemas/DeletedBlogResponse' }],
        description: 'B',
      },
    ],
    [
      'CommentEventResponse',
      'comment',
      ['comment.created'],
      { allOf: [{ $ref: '#/components/schemas/CommentResponse' }], description: 'C' },
    ],
  ])('makes %s: its types, and its payload under the key %s', (name, key, types, payload) => {
    const doc = document();

    applyEventSchemas(doc, resources);

    expect(doc.components?.schemas?.[name]).toEqual({
      type: 'object',
      properties: {
        id: ID,
        type: { type: 'string', enum: types, example: types[0] },
        occurredAt: OCCURRED_AT,
        [key]: payload,
      },
      required: ['id', 'type', 'occurredAt', key],
      additionalProperties: false,
    });
  });

  it('makes EventResponse the oneOf of the resources’ events, told apart by type', () => {
    const doc = document();

    applyEventSchemas(doc, resources);

    const blog = '#/components/schemas/BlogEventResponse';
    const comment = '#/components/schemas/CommentEventResponse';
    expect(doc.components?.schemas?.EventResponse).toMatchObject({
      oneOf: [{ $ref: blog }, { $ref: comment }],
      discriminator: {
        propertyName: 'type',
        mapping: { 'blog.created': blog, 'blog.deleted': blog, 'comment.created': comment },
      },
    });
  });
});
