import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, MaxLength, ValidateNested } from 'class-validator';
import { ValidationProblemException } from '../filters/problem-types';
import { globalPipes } from './global-pipes';

class Author {
  @IsString()
  readonly name!: string;
}

class Section {
  @MaxLength(3)
  readonly heading!: string;
}

class Post {
  @IsString()
  readonly title!: string;

  @ValidateNested()
  @Type(() => Author)
  readonly author!: Author;

  @ValidateNested({ each: true })
  @Type(() => Section)
  readonly sections!: Section[];
}

class Paging {
  @IsInt()
  readonly limit!: number;
}

const validate = async (value: unknown, metadata: ArgumentMetadata): Promise<ValidationProblemException> => {
  const [, validation] = globalPipes();
  const error: unknown = await Promise.resolve(validation.transform(value, metadata)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationProblemException);
  return error as ValidationProblemException;
};

describe('ProblemValidationPipe', () => {
  it('points into the body: nested properties, array indexes, unknown properties escaped per RFC 6901', async () => {
    const error = await validate(
      { title: 7, author: { name: 1 }, sections: [{ heading: 'ok' }, { heading: 'too long' }], 'a/b~c': 1 },
      { type: 'body', metatype: Post },
    );

    expect(error.errors).toEqual([
      { detail: 'property a/b~c should not exist', pointer: '/a~1b~0c' },
      { detail: 'title must be a string', pointer: '/title' },
      { detail: 'author.name must be a string', pointer: '/author/name' },
      { detail: 'sections.1.heading must be shorter than or equal to 3 characters', pointer: '/sections/1/heading' },
    ]);
    // The 1.x message list is ValidationPipe's own, rule for rule.
    expect(error.getResponse()).toMatchObject({ message: error.errors.map((e) => e.detail) });
  });

  it.each<ArgumentMetadata['type']>(['query', 'param'])('names the parameter of a %s', async (type) => {
    const error = await validate({ limit: 'ten' }, { type, metatype: Paging });

    expect(error.errors).toEqual([{ detail: 'limit must be an integer number', parameter: 'limit' }]);
    expect(error.getResponse()).toMatchObject({ message: ['limit must be an integer number'] });
  });
});
