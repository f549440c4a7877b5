import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyUnreadBody, jsonTextDepth, MAX_BODY_DEPTH, UnreadBody, verifyJsonBody } from './json-body.interceptor';

type FakeRequest = IncomingMessage & { body?: unknown };

function fakeRequest(contentType: string | undefined, body: unknown): FakeRequest {
  return { headers: { 'content-type': contentType }, body } as FakeRequest;
}

const response = {} as ServerResponse;

/** Runs `classifyUnreadBody` and returns what it left in `request.body`. */
function classify(request: FakeRequest): unknown {
  classifyUnreadBody(request);
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
    verifyJsonBody(request, response, Buffer.alloc(0));
    request.body = {};
    expect(classify(request)).toBe(UnreadBody.EMPTY);
  });

  it('leaves a parsed "{}" of two bytes alone', () => {
    const request = fakeRequest('application/json', undefined);
    verifyJsonBody(request, response, Buffer.from('{}'));
    const body = {};
    request.body = body;
    expect(classify(request)).toBe(body);
  });
});

describe('jsonTextDepth and verifyJsonBody', () => {
  it.each([
    ['"x"', 0],
    ['{"title":"t","content":"c","author":"a"}', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['{"a":"[[[[{{{{"}', 1],
    ['{"a":"\\"[[["}', 1],
    ['{"a":"\\\\"}', 1],
    [`${'['.repeat(32)}${']'.repeat(32)}`, 32],
    ['['.repeat(1_048_000), 33],
  ])('%s is %d deep (33: given up past 32)', (text, depth) => {
    expect(jsonTextDepth(Buffer.from(text), MAX_BODY_DEPTH)).toBe(depth);
  });

  it('verifyJsonBody refuses 33 levels with a 400 client error naming the bound, before parsing', () => {
    const request = { headers: {} } as never;
    expect(() => verifyJsonBody(request, {} as never, Buffer.from(`{"a":${'['.repeat(32)}`))).toThrow(
      expect.objectContaining({
        status: 400,
        expose: true,
        message: 'request body must not nest objects or arrays more than 32 levels deep',
      }),
    );
    expect(() => verifyJsonBody(request, {} as never, Buffer.from('{"a":[[1]]}'))).not.toThrow();
  });
});
