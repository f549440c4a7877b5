import { ArgumentMetadata, BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import { IsString } from 'class-validator';
import { expectHttpError } from '../../../test/support/http-error';
import { UnreadBody } from '../http/json-body.reader';
import { JsonBodyPipe, MAX_BODY_PROPERTIES, nestingDepth } from './json-body.pipe';

class NoteDto {
  @IsString()
  readonly title!: string;

  @IsString()
  readonly text!: string;
}

describe('JsonBodyPipe', () => {
  const pipe = new JsonBodyPipe();
  const body: ArgumentMetadata = { type: 'body' };
  const query: ArgumentMetadata = { type: 'query' };

  /** The exception `pipe.transform` threw for `value`. */
  function thrown(value: unknown, metadata: ArgumentMetadata = body): unknown {
    try {
      pipe.transform(value, metadata);
    } catch (error) {
      return error;
    }
    throw new Error('transform did not throw');
  }

  it.each([
    [['application/json'], 'Content-Type must be application/json (optionally with charset=utf-8)'],
    [
      ['application/merge-patch+json', 'application/json'],
      'Content-Type must be application/merge-patch+json or application/json (optionally with charset=utf-8)',
    ],
  ])('answers an unsupported media type (accepted: %p) with 415 naming the types and the charset', (types, message) => {
    const error = thrown(UnreadBody.unsupportedMediaType(types));
    expect(error).toBeInstanceOf(UnsupportedMediaTypeException);
    expect((error as UnsupportedMediaTypeException).message).toBe(message);
  });

  it('answers an empty JSON body with 400 "must be a JSON object"', () => {
    const error = thrown(UnreadBody.EMPTY);
    expect(error).toBeInstanceOf(BadRequestException);
    expect((error as BadRequestException).message).toMatch(/must be a JSON object/);
  });

  it('answers a body nobody classified (the pipe without setupApp) with 415, as an unread body', async () => {
    await expectHttpError(
      () => pipe.transform(undefined, body),
      UnsupportedMediaTypeException,
      415,
      'Content-Type must be application/json (optionally with charset=utf-8)',
    );
  });

  it.each([[[]], [['a']], ['text'], [42], [null], [true]])('rejects the JSON value %p with 400', (value) => {
    expect(thrown(value)).toBeInstanceOf(BadRequestException);
  });

  it('passes a JSON object through', () => {
    const value = { title: 't', content: 'c', author: 'a' };
    expect(pipe.transform(value, body)).toBe(value);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('rejects an own %s key in a body or a query', (key) => {
    const value: unknown = JSON.parse(`{"${key}":{}}`);
    expect(thrown(value)).toBeInstanceOf(BadRequestException);
    expect(thrown(value, query)).toBeInstanceOf(BadRequestException);
  });

  it.each([
    [MAX_BODY_PROPERTIES, 'passes'],
    [MAX_BODY_PROPERTIES + 1, 'rejects'],
  ])('a body of %d properties: %s the bound', (count, verdict) => {
    const value = Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 0]));
    if (verdict === 'passes') expect(pipe.transform(value, body)).toBe(value);
    else expect(thrown(value)).toBeInstanceOf(BadRequestException);
  });

  it('answers 130,000 unknown keys with one short 400 naming the count and three unknown properties', () => {
    const value: Record<string, unknown> = { title: 't', text: 'x' };
    for (let i = 0; i < 130_000; i += 1) value[String(i)] = 0;
    const error = thrown(value, { type: 'body', metatype: NoteDto });
    expect((error as BadRequestException).getResponse()).toMatchObject({
      message: [
        `request body must not have more than ${MAX_BODY_PROPERTIES} properties; it has 130002`,
        'property 0 should not exist',
        'property 1 should not exist',
        'property 2 should not exist',
      ],
    });
  });

  it('leaves other parameters alone, whatever they are', () => {
    expect(pipe.transform(undefined, { type: 'param', data: 'id' })).toBeUndefined();
  });
});

describe('nestingDepth and the body depth bound', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? { a: value } : [value];
    return value;
  };

  it('measures objects and arrays, primitives being 0', () => {
    expect(nestingDepth('x', 32)).toBe(0);
    expect(nestingDepth(null, 32)).toBe(0);
    expect(nestingDepth({ title: 't', content: 'c', author: 'a' }, 32)).toBe(1);
    expect(nestingDepth({ a: [1, { b: [] }] }, 32)).toBe(4);
    expect(nestingDepth(nested(32), 32)).toBe(32);
  });

  it('stops past the limit without recursion (100,000 levels)', () => {
    expect(nestingDepth(nested(100_000), 32)).toBe(33);
  });

  it('JsonBodyPipe: 32 levels pass on to validation, 33 are a 400 naming the bound', () => {
    const pipe = new JsonBodyPipe();
    const body = (depth: number): unknown => ({ title: nested(depth - 1), content: 'c', author: 'a' });
    expect(pipe.transform(body(32), { type: 'body' })).toEqual(body(32));
    expect(() => pipe.transform(body(33), { type: 'body' })).toThrow(/more than 32 levels deep/);
    expect(() => pipe.transform(body(100_000), { type: 'body' })).toThrow(BadRequestException);
  });
});
