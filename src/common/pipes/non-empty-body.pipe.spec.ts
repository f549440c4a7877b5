import { BadRequestException } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import { NonEmptyBodyPipe } from './non-empty-body.pipe';

class NotePatch {
  @IsOptional()
  @IsString()
  readonly title?: string;

  @IsOptional()
  @IsString()
  readonly text?: string;
}

describe('NonEmptyBodyPipe', () => {
  const pipe = new NonEmptyBodyPipe();

  it.each([[{ title: 't' }], [{ text: '' }], [{ title: 't', text: 'x' }]])('passes %p through', (value) => {
    expect(pipe.transform(value, { type: 'body', metatype: NotePatch })).toBe(value);
  });

  it.each([
    ['an empty object', {}],
    ['only undefined properties', { title: undefined }],
    ['an empty DTO instance', new NotePatch()],
  ])('rejects %s with 400 naming the DTO’s properties', (_name, value) => {
    expect(() => pipe.transform(value, { type: 'body', metatype: NotePatch })).toThrow(
      new BadRequestException('request body must give at least one of title, text'),
    );
  });

  it('rejects an empty body without a DTO in general terms', () => {
    expect(() => pipe.transform({}, { type: 'body' })).toThrow(
      new BadRequestException('request body must give at least one property'),
    );
  });

  it.each([[undefined], ['text'], [null]])('leaves %p to the other pipes', (value) => {
    expect(pipe.transform(value, { type: 'body', metatype: NotePatch })).toBe(value);
  });
});
