import { BadRequestException } from '@nestjs/common';
import { expectHttpError } from '../../../test/support/http-error';
import {
  MAX_ENTITY_TAG_CONDITION_LENGTH,
  parseEntityTagCondition,
  parseWritePreconditions,
} from './entity-tag-condition';

describe('parseEntityTagCondition', () => {
  it.each([
    ['*', { any: true }],
    [' * ', { any: true }],
    ['"a"', { any: false, tags: [{ weak: false, opaque: '"a"' }] }],
    ['W/"a"', { any: false, tags: [{ weak: true, opaque: '"a"' }] }],
    [
      '"a", W/"b","c"',
      {
        any: false,
        tags: [
          { weak: false, opaque: '"a"' },
          { weak: true, opaque: '"b"' },
          { weak: false, opaque: '"c"' },
        ],
      },
    ],
    ['"a,b"', { any: false, tags: [{ weak: false, opaque: '"a,b"' }] }],
    ['""', { any: false, tags: [{ weak: false, opaque: '""' }] }],
    ['', { any: false, tags: [] }],
    [' , ,"a",, ', { any: false, tags: [{ weak: false, opaque: '"a"' }] }],
    ['\t"a"\t', { any: false, tags: [{ weak: false, opaque: '"a"' }] }],
    ['"\u00e9"', { any: false, tags: [{ weak: false, opaque: '"\u00e9"' }] }],
  ])('parses %p', (value, expected) => {
    expect(parseEntityTagCondition('If-Match', value)).toEqual(expected);
  });

  it.each([
    ['a'],
    ['"a'],
    ['a"'],
    ['"a" "b"'],
    ['"a" x'],
    ['w/"a"'],
    ['W/ "a"'],
    ['*, "a"'],
    ['"a", *'],
    ['**'],
    ['"a b"'],
    ['"\u0001"'],
    ['"a"b"'],
  ])('rejects %p with 400 naming the header', async (value) => {
    await expectHttpError(
      () => parseEntityTagCondition('If-None-Match', value),
      BadRequestException,
      400,
      'If-None-Match must be * or a comma-separated list of quoted entity tags',
    );
  });

  it('parses a long list in linear time (no backtracking blow-up)', () => {
    const value = Array.from({ length: 200 }, (_, i) => `"${i}"`).join(', ');
    // The fastest of several runs: a busy machine may pause any one of them.
    const runs = Array.from({ length: 5 }, () => {
      const started = process.hrtime.bigint();
      expect(parseEntityTagCondition('If-Match', value)).toMatchObject({ any: false, tags: { length: 200 } });
      return Number(process.hrtime.bigint() - started) / 1e6;
    });
    expect(Math.min(...runs)).toBeLessThan(50);
  });

  // Each took ~0.2 s with a regex whose two whitespace runs competed for the same spaces; linear, each takes ~0.05 ms.
  // The fastest of 20 runs under 50 ms: far from either, so a busy machine does not fail it.
  it.each([
    ['a comma and blanks before garbage', `,${' '.repeat(2_000)}x`],
    ['blanks before garbage', `${' '.repeat(2_040)}x`],
    ['tabs and commas', `${',\t'.repeat(1_000)}x`],
    ['a tag and blanks before garbage', `"a"${' '.repeat(2_000)}x`],
    ['W/ repeated', 'W/'.repeat(1_000)],
  ])('rejects pathological input (%s) at once', (_name, value) => {
    const runs = Array.from({ length: 20 }, () => {
      const started = process.hrtime.bigint();
      expect(() => parseEntityTagCondition('If-Match', value)).toThrow(BadRequestException);
      return Number(process.hrtime.bigint() - started) / 1e6;
    });
    expect(Math.min(...runs)).toBeLessThan(50);
  });

  it.each([
    [MAX_ENTITY_TAG_CONDITION_LENGTH, 'accepts'],
    [MAX_ENTITY_TAG_CONDITION_LENGTH + 1, 'rejects'],
  ])('a value of %d characters: %s', async (length, verdict) => {
    const value = `"${'a'.repeat(length - 2)}"`;
    const parse = (): unknown => parseEntityTagCondition('If-Match', value);
    if (verdict === 'accepts') expect(parse()).toEqual({ any: false, tags: [{ weak: false, opaque: value }] });
    else await expectHttpError(parse, BadRequestException, 400, 'If-Match must be at most 2048 characters long');
  });
});

describe('parseWritePreconditions', () => {
  it.each([
    [undefined, undefined, { ifMatch: undefined, ifNoneMatch: undefined }],
    ['"7-1"', undefined, { ifMatch: { any: false, tags: [{ weak: false, opaque: '"7-1"' }] }, ifNoneMatch: undefined }],
    [undefined, '*', { ifMatch: undefined, ifNoneMatch: { any: true } }],
  ])('parses If-Match %p and If-None-Match %p', (ifMatch, ifNoneMatch, expected) => {
    expect(parseWritePreconditions({ ifMatch, ifNoneMatch })).toEqual(expected);
  });

  it.each([
    ['x', undefined, 'If-Match'],
    [undefined, 'W/', 'If-None-Match'],
  ])('answers a malformed If-Match %p / If-None-Match %p with 400 naming %s', async (ifMatch, ifNoneMatch, name) => {
    await expectHttpError(
      () => parseWritePreconditions({ ifMatch, ifNoneMatch }),
      BadRequestException,
      400,
      `${name} must be * or a comma-separated list of quoted entity tags`,
    );
  });
});
