import { parseIdempotencyKey } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it.each([
    ['a bare key', 'abc-123', 'abc-123'],
    ['a quoted key', '"abc-123"', 'abc-123'],
    ['quoted escapes', '"a\\"b\\\\c"', 'a"b\\c'],
    ['a bare key with a quote inside', 'a"b', 'a"b'],
    ['255 characters', 'k'.repeat(255), 'k'.repeat(255)],
    ['255 characters quoted', `"${'k'.repeat(255)}"`, 'k'.repeat(255)],
    ['! and ~', '!~', '!~'],
  ])('reads %s', (_name, value, key) => {
    expect(parseIdempotencyKey(value)).toBe(key);
  });

  it.each([
    ['empty', ''],
    ['an empty quoted string', '""'],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'a b'],
    ['a space inside quotes', '"a b"'],
    ['an unterminated quote', '"abc'],
    ['a bad escape', '"a\\b"'],
    ['a character past ~', 'caf\u00e9'],
    ['a control character', 'a\u0001'],
    ['two header lines', ['a', 'b']],
  ])('refuses %s', (_name, value) => {
    expect(parseIdempotencyKey(value)).toBeUndefined();
  });
});
