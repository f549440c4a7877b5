import type { IncomingMessage, ServerResponse } from 'node:http';
import { ArgumentMetadata, BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import {
  classifyUnreadBody,
  isJsonContentType,
  JsonBodyPipe,
  nestingDepth,
  noteEmptyJsonBody,
  UnreadBody,
} from './json-body.pipe';

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json ; charset=utf-8',
    'application/json; charset=utf-8 ',
    'application/json;',
    'application/json; foo=bar',
    'application/json; foo="x;y"; charset=utf-8',
  ])('accepts %p', (contentType) => {
    expect(isJsonContentType(contentType)).toBe(true);
  });

  it.each<[string, string | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['text/plain', 'text/plain'],
    ['text/json', 'text/json'],
    ['a +json type (merge-patch)', 'application/merge-patch+json'],
    ['a +json type (vnd.api)', 'application/vnd.api+json'],
    ['application/jsonx', 'application/jsonx'],
    ['a wildcard', 'application/*'],
    ['a list of types', 'application/json, text/plain'],
    ['charset latin1', 'application/json; charset=latin1'],
    ['charset ISO-8859-1 quoted', 'application/json; charset="ISO-8859-1"'],
    ['charset utf-16', 'application/json; charset=utf-16'],
    ['charset utf8 (not the registered name)', 'application/json; charset=utf8'],
    ['an empty charset', 'application/json; charset='],
    ['charset utf-8 followed by more text', 'application/json; charset=utf-8 x'],
    ['a second, foreign charset', 'application/json; charset=utf-8; charset=latin1'],
    ['a foreign charset first', 'application/json; charset=latin1; charset=utf-8'],
    ['an upper-case CHARSET name', 'application/json; CHARSET=latin1'],
  ])('rejects %s', (_name, contentType) => {
    expect(isJsonContentType(contentType)).toBe(false);
  });
});

type FakeRequest = IncomingMessage & { body?: unknown };

function fakeRequest(contentType: string | undefined, body: unknown): FakeRequest {
  return { headers: { 'content-type': contentType }, body } as FakeRequest;
}

const response = {} as ServerResponse;

/** Runs `classifyUnreadBody` and returns what it left in `request.body`, checking it called next. */
function classify(request: FakeRequest): unknown {
  const next = jest.fn();
  classifyUnreadBody(request, response, next);
  expect(next).toHaveBeenCalledWith();
  return request.body;
}

describe('classifyUnreadBody', () => {
  it('marks an unread body of a JSON request as empty (a JSON type without a body)', () => {
    expect(classify(fakeRequest('application/json', undefined))).toBe(UnreadBody.EMPTY);
  });

  it.each([
    ['no Content-Type', undefined],
    ['text/plain', 'text/plain'],
    ['JSON in latin1', 'application/json; charset=latin1'],
  ])('marks an unread body with %s as an unsupported media type', (_name, contentType) => {
    expect(classify(fakeRequest(contentType, undefined))).toBe(UnreadBody.UNSUPPORTED_MEDIA_TYPE);
  });

  it('leaves a parsed body alone', () => {
    const body = { title: 't' };
    expect(classify(fakeRequest('application/json', body))).toBe(body);
  });

  it('marks a parsed body of zero bytes (body-parser makes it {}) as empty', () => {
    const request = fakeRequest('application/json', undefined);
    noteEmptyJsonBody(request, response, Buffer.alloc(0));
    request.body = {};
    expect(classify(request)).toBe(UnreadBody.EMPTY);
  });

  it('leaves a parsed "{}" of two bytes alone', () => {
    const request = fakeRequest('application/json', undefined);
    noteEmptyJsonBody(request, response, Buffer.from('{}'));
    const body = {};
    request.body = body;
    expect(classify(request)).toBe(body);
  });
});

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

  it('answers an unsupported media type with 415 naming the type and the charset', () => {
    const error = thrown(UnreadBody.UNSUPPORTED_MEDIA_TYPE);
    expect(error).toBeInstanceOf(UnsupportedMediaTypeException);
    expect((error as UnsupportedMediaTypeException).message).toMatch(/application\/json.*utf-8/);
  });

  it('answers an empty JSON body with 400 "must be a JSON object"', () => {
    const error = thrown(UnreadBody.EMPTY);
    expect(error).toBeInstanceOf(BadRequestException);
    expect((error as BadRequestException).message).toMatch(/must be a JSON object/);
  });

  it('answers a body nobody classified (the pipe without setupApp) with 415, as an unread body', () => {
    expect(thrown(undefined)).toBeInstanceOf(UnsupportedMediaTypeException);
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
