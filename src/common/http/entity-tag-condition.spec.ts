import { BadRequestException } from '@nestjs/common';
import { parseEntityTagCondition } from './entity-tag-condition';

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
  ])('rejects %p with 400 naming the header', (value) => {
    expect(() => parseEntityTagCondition('If-None-Match', value)).toThrow(
      new BadRequestException('If-None-Match must be * or a comma-separated list of quoted entity tags'),
    );
  });

  it('parses a long list in linear time (no backtracking blow-up)', () => {
    const value = Array.from({ length: 2_000 }, (_, i) => `"${i}"`).join(', ');
    const started = process.hrtime.bigint();
    const condition = parseEntityTagCondition('If-Match', value);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(200);
    expect(condition.any === false && condition.tags.length).toBe(2_000);
  });
});
