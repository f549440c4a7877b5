import { BadRequestException } from '@nestjs/common';
import { parseBlogId } from './blog-id.decorator';

describe('parseBlogId', () => {
  it.each([
    ['1', 1],
    ['9', 9],
    ['10', 10],
    ['17', 17],
    ['1000000000', 1_000_000_000],
    ['2147483647', 2_147_483_647],
  ])('parses %p as %p', (raw, expected) => {
    expect(parseBlogId(raw)).toBe(expected);
  });

  it.each([
    ['0'],
    ['-1'],
    ['+1'],
    ['01'],
    ['00'],
    ['1.5'],
    ['1.0'],
    ['1e3'],
    [' 1'],
    ['1 '],
    ['1\n'],
    ['abc'],
    ['12abc'],
    [''],
    ['0x1'],
    ['2147483648'],
    ['4294967295'],
    ['9999999999'],
    ['99999999999999999999'],
    ['1'.repeat(10_000)],
    ['２'],
    ['１'],
    [undefined],
    [null],
    [1],
    [['1']],
  ])('rejects %p with BadRequestException (400)', (raw) => {
    let caught: unknown;
    try {
      parseBlogId(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BadRequestException);
    expect((caught as BadRequestException).getStatus()).toBe(400);
  });

  it('names the rule in the 400 message', () => {
    expect(() => parseBlogId('0')).toThrow(
      new BadRequestException('id must be a positive integer no greater than 2147483647'),
    );
  });
});
