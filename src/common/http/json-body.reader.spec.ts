import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyUnreadBody, jsonTextDepth, MAX_BODY_DEPTH, UnreadBody, verifyJsonBody } from './json-body.reader';

type FakeRequest = IncomingMessage & { body?: unknown };

function fakeRequest(contentType: string | undefined, body: unknown, method = 'POST'): FakeRequest {
  return { method, headers: { 'content-type': contentType }, body } as FakeRequest;
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
    ['a JSON Merge Patch', 'application/merge-patch+json'],
  ])(
    'marks an unread body of a POST or PUT with %s as an unsupported media type, JSON being the one accepted',
    (_name, contentType) => {
      for (const method of ['POST', 'PUT']) {
        const body = classify(fakeRequest(contentType, undefined, method));
        expect(body).toBeInstanceOf(UnreadBody);
        expect(body).toHaveProperty('acceptedTypes', ['application/json']);
      }
    },
  );

  it.each([
    ['application/merge-patch+json', UnreadBody.EMPTY],
    ['application/merge-patch+json; charset=UTF-8', UnreadBody.EMPTY],
    ['application/json', UnreadBody.EMPTY],
  ])('marks an unread PATCH body of %s as empty', (contentType, expected) => {
    expect(classify(fakeRequest(contentType, undefined, 'PATCH'))).toBe(expected);
  });

  it.each([
    ['no Content-Type', undefined],
    ['text/plain', 'text/plain'],
    ['JSON Patch (RFC 6902)', 'application/json-patch+json'],
    ['a merge patch in latin1', 'application/merge-patch+json; charset=latin1'],
  ])('marks an unread PATCH body with %s as an unsupported media type, naming both accepted types', (_name, type) => {
    const body = classify(fakeRequest(type, undefined, 'PATCH'));
    expect(body).toBeInstanceOf(UnreadBody);
    expect(body).toHaveProperty('acceptedTypes', ['application/merge-patch+json', 'application/json']);
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

describe('verifyJsonBody and UTF-8', () => {
  const verify = (bytes: number[]) => () =>
    verifyJsonBody({ headers: {} } as never, {} as never, Buffer.from([0x22, ...bytes, 0x22]));

  it.each([
    ['a lone continuation byte', [0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a surrogate code point', [0xed, 0xa0, 0x80]],
    ['FF', [0xff]],
  ])('refuses %s with a 400 client error naming the body', (_name, bytes) => {
    expect(verify(bytes)).toThrow(
      expect.objectContaining({
        status: 400,
        expose: true,
        message: 'request body must be UTF-8: it holds bytes that are not (RFC 8259 §8.1)',
      }),
    );
  });

  it('passes UTF-8 of 1 to 4 bytes', () => {
    expect(verify([...Buffer.from('a é € 😀')])).not.toThrow();
  });
});
