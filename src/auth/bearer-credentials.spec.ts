import type { IncomingMessage } from 'node:http';
import { BearerCredentials, bearerTokenFromRequest, readBearerCredentials } from './bearer-credentials';

/** A JWS compact serialisation: only b64token characters (base64url segments and dots). */
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

describe('readBearerCredentials (RFC 6750 §2.1)', () => {
  it.each<[string, string, string]>([
    ['a JWT', `Bearer ${JWT}`, JWT],
    ['the scheme in lower case', `bearer ${JWT}`, JWT],
    ['the scheme in upper case', `BEARER ${JWT}`, JWT],
    ['the scheme in mixed case', `bEaReR ${JWT}`, JWT],
    ['several spaces after the scheme (1*SP)', `Bearer   ${JWT}`, JWT],
    ['every b64token character', 'Bearer AZaz09-._~+/', 'AZaz09-._~+/'],
    ['trailing "=" padding', 'Bearer abc==', 'abc=='],
    ['a one-character token', 'Bearer x', 'x'],
  ])('reads %s', (_name, header, token) => {
    expect(readBearerCredentials(header)).toEqual<BearerCredentials>({ kind: 'token', token });
  });

  it.each<[string, string | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', `Basic ${Buffer.from('alice:pw').toString('base64')}`],
    ['a token without a scheme', JWT],
    ['a scheme that only starts with Bearer', `Bearerx ${JWT}`],
    ['"Bearer" alone', 'Bearer'],
    ['"Bearer" and spaces only', 'Bearer   '],
  ])('finds no bearer token in %s', (_name, header) => {
    expect(readBearerCredentials(header)).toEqual<BearerCredentials>({ kind: 'none' });
  });

  it.each<[string, string]>([
    ['garbage after the token', `Bearer ${JWT} trailing-garbage`],
    ['a second token', `Bearer ${JWT} ${JWT}`],
    ['auth-params after the token', `Bearer ${JWT}, realm="blogs"`],
    ['auth-params instead of a token', 'Bearer realm="blogs"'],
    ['a trailing space (not stripped by a client library)', `Bearer ${JWT} `],
    ['a tab instead of a space', `Bearer\t${JWT}`],
    ['a character outside b64token', 'Bearer abc,def'],
    ['"=" inside the token', 'Bearer ab=cd'],
    ['only "=" padding', 'Bearer =='],
    ['a non-ASCII character', 'Bearer tökén'],
  ])('calls %s malformed', (_name, header) => {
    expect(readBearerCredentials(header)).toEqual<BearerCredentials>({ kind: 'malformed' });
  });
});

describe('bearerTokenFromRequest', () => {
  const request = (authorization?: string): IncomingMessage => ({ headers: { authorization } }) as IncomingMessage;

  it('returns the token of well-formed credentials', () => {
    expect(bearerTokenFromRequest(request(`Bearer ${JWT}`))).toBe(JWT);
  });

  it('returns null when no bearer token was sent', () => {
    expect(bearerTokenFromRequest(request())).toBeNull();
  });

  it('returns null, not the first word, when something follows the token', () => {
    expect(bearerTokenFromRequest(request(`Bearer ${JWT} trailing-garbage`))).toBeNull();
  });
});
