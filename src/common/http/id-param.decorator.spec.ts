import { BadRequestException } from '@nestjs/common';
import { expectHttpError } from '../../../test/support/http-error';
import { idParamMessage, parseId } from './id-param.decorator';

describe('parseId', () => {
  it.each([
    ['1', 1],
    ['9', 9],
    ['10', 10],
    ['17', 17],
    ['1000000000', 1_000_000_000],
    ['2147483647', 2_147_483_647],
  ])('parses %p as %p', (raw, expected) => {
    expect(parseId('id', raw)).toBe(expected);
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
  ])('rejects %p with BadRequestException (400)', async (raw) => {
    await expectHttpError(
      () => parseId('id', raw),
      BadRequestException,
      400,
      'id must be a positive integer no greater than 2147483647',
    );
  });

  it.each(['id', 'tagId'])('names the parameter %p and the rule in the 400 message', async (name) => {
    await expectHttpError(
      () => parseId(name, '0'),
      BadRequestException,
      400,
      `${name} must be a positive integer no greater than 2147483647`,
    );
  });

  it.each(['id', 'commentId'])('says in idParamMessage(%p) what parseId answers', async (name) => {
    await expectHttpError(() => parseId(name, 'x'), BadRequestException, 400, idParamMessage(name));
  });
});
