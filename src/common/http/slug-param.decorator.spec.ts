import { BadRequestException } from '@nestjs/common';
import { expectHttpError } from '../../../test/support/http-error';
import { parseSlug } from './slug-param.decorator';

describe('parseSlug', () => {
  it.each(['a', '0', 'nestjs', 'node-js', 'a1-b2-c3', 'x'.repeat(200)])('takes %p as it is', (raw) => {
    expect(parseSlug('slug', raw)).toBe(raw);
  });

  it.each([
    [''],
    ['NestJS'],
    ['-a'],
    ['a-'],
    ['a--b'],
    ['a_b'],
    ['a b'],
    ['ä'],
    ['x'.repeat(201)],
    [undefined],
    [['a']],
  ])('refuses %p naming the parameter', async (raw) => {
    await expectHttpError(
      () => parseSlug('slug', raw),
      BadRequestException,
      400,
      "slug must be a slug: lower-case letters a-z and digits, in runs joined by single '-', at most 200 characters",
    );
  });

  it('takes a slug at a lower limit, and refuses one a character longer', async () => {
    expect(parseSlug('slug', 'x'.repeat(50), 50)).toBe('x'.repeat(50));
    await expectHttpError(
      () => parseSlug('slug', 'x'.repeat(51), 50),
      BadRequestException,
      400,
      "slug must be a slug: lower-case letters a-z and digits, in runs joined by single '-', at most 50 characters",
    );
  });
});
