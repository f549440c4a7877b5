import { principalFromClaims } from './principal';

describe('principalFromClaims', () => {
  const exp = 1_900_000_000;

  it('builds the principal from sub and a space-separated scope', () => {
    expect(principalFromClaims({ sub: 'alice', exp, scope: 'blogs:admin openid' })).toEqual({
      sub: 'alice',
      scopes: ['blogs:admin', 'openid'],
    });
  });

  it('ignores repeated, leading and trailing spaces', () => {
    expect(principalFromClaims({ sub: 'alice', exp, scope: '  a   b  c ' })).toEqual({
      sub: 'alice',
      scopes: ['a', 'b', 'c'],
    });
  });

  it('gives no scopes when the scope claim is missing', () => {
    expect(principalFromClaims({ sub: 'alice', exp })).toEqual({ sub: 'alice', scopes: [] });
  });

  it('gives no scopes for an empty or blank scope', () => {
    expect(principalFromClaims({ sub: 'alice', exp, scope: '' })?.scopes).toEqual([]);
    expect(principalFromClaims({ sub: 'alice', exp, scope: '   ' })?.scopes).toEqual([]);
  });

  it('gives no scopes when the scope claim is not a string', () => {
    expect(principalFromClaims({ sub: 'alice', exp, scope: ['blogs:admin'] })?.scopes).toEqual([]);
    expect(principalFromClaims({ sub: 'alice', exp, scope: 1 })?.scopes).toEqual([]);
  });

  it('keeps a scope as a whole word (blogs:administrator is not blogs:admin)', () => {
    const principal = principalFromClaims({ sub: 'alice', exp, scope: 'blogs:administrator' });
    expect(principal?.scopes).toEqual(['blogs:administrator']);
    expect(principal?.scopes).not.toContain('blogs:admin');
  });

  it('returns undefined when sub is missing', () => {
    expect(principalFromClaims({ exp })).toBeUndefined();
  });

  it('returns undefined when sub is empty', () => {
    expect(principalFromClaims({ sub: '', exp })).toBeUndefined();
  });

  it.each([[42], [null], [{}], [['alice']], [true]])('returns undefined when sub is %p (not a string)', (sub) => {
    expect(principalFromClaims({ sub, exp })).toBeUndefined();
  });

  it('returns undefined when exp is missing', () => {
    expect(principalFromClaims({ sub: 'alice' })).toBeUndefined();
  });

  it.each([['1900000000'], [null], [{}], [[exp]]])('returns undefined when exp is %p (not a number)', (badExp) => {
    expect(principalFromClaims({ sub: 'alice', exp: badExp })).toBeUndefined();
  });

  it.each([
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'a\udc00'],
    ['U+0000', 'al\u0000ice'],
  ])('returns undefined when sub has %s', (_name, sub) => {
    expect(principalFromClaims({ sub, exp })).toBeUndefined();
  });

  it.each([
    ['exp', { exp: Infinity }],
    ['exp', { exp: NaN }],
    ['nbf', { exp, nbf: -Infinity }],
    ['nbf', { exp, nbf: '0' }],
    ['iat', { exp, iat: Infinity }],
  ])('returns undefined when %s is not a finite number (%p)', (_claim, times) => {
    expect(principalFromClaims({ sub: 'alice', ...times })).toBeUndefined();
  });

  it('accepts finite nbf and iat, and U+FFFD written as such', () => {
    expect(principalFromClaims({ sub: '\ufffd', exp, nbf: 0, iat: exp - 60 })).toEqual({ sub: '\ufffd', scopes: [] });
  });

  it('keeps the sub exactly as given', () => {
    expect(principalFromClaims({ sub: ' Alice@Example ', exp })?.sub).toBe(' Alice@Example ');
  });
});
