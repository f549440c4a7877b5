import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { InvalidParam, ValidationProblemException } from '../filters/problem-types';
import { CodePointLength } from '../validators/code-point-length.decorator';
import { globalPipes } from './global-pipes';

class Author {
  @IsString()
  readonly name!: string;
}

class Section {
  @MaxLength(3)
  readonly heading!: string;

  @IsString({ each: true })
  @IsOptional()
  readonly notes?: string[];
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

class Tagged {
  @CodePointLength(1, 3, { each: true })
  @MaxLength(2, { each: true, message: '$property must be at most $constraint1 long, not $value' })
  @IsString({ each: true })
  @ArrayMaxSize(3)
  readonly tags!: string[];
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

  it.each<[string, unknown, InvalidParam[]]>([
    [
      'a type rule (built-in message)',
      { tags: ['ok', 5] },
      [{ detail: 'tags[1] must be a string', pointer: '/tags/1' }],
    ],
    [
      'a rule broken by several items, in item order',
      { tags: [1, 'ok', true] },
      [
        { detail: 'tags[0] must be a string', pointer: '/tags/0' },
        { detail: 'tags[2] must be a string', pointer: '/tags/2' },
      ],
    ],
    [
      'a custom message with tokens',
      { tags: ['ok', 'long'] },
      [{ detail: 'tags[1] must be at most 2 long, not long', pointer: '/tags/1' }],
    ],
    [
      'a custom rule (ValidateBy)',
      { tags: ['', 'ok'] },
      [{ detail: 'tags[0] must be 1 to 3 characters long', pointer: '/tags/0' }],
    ],
    [
      'a rule on the whole array',
      { tags: ['a', 'b', 'c', 'd'] },
      [{ detail: 'tags must contain no more than 3 elements', pointer: '/tags' }],
    ],
  ])('points an `each` rule at the item that breaks it: %s', async (_name, body, errors) => {
    const error = await validate(body, { type: 'body', metatype: Tagged });

    expect(error.errors).toEqual(errors);
    expect(error.getResponse()).toMatchObject({ message: errors.map((e) => e.detail) });
  });

  it('points an `each` rule of a nested object at the item, after its parents (a/2/b/1)', async () => {
    const error = await validate(
      { title: 't', author: { name: 'n' }, sections: [{ heading: 'a' }, { heading: 'b', notes: ['x', 3] }] },
      { type: 'body', metatype: Post },
    );

    expect(error.errors).toEqual([{ detail: 'sections.1.notes[1] must be a string', pointer: '/sections/1/notes/1' }]);
    expect(error.getResponse()).toMatchObject({ message: ['sections.1.notes[1] must be a string'] });
  });

  it.each<ArgumentMetadata['type']>(['query', 'param'])('names the parameter of a %s', async (type) => {
    const error = await validate({ limit: 'ten' }, { type, metatype: Paging });

    expect(error.errors).toEqual([{ detail: 'limit must be an integer number', parameter: 'limit' }]);
    expect(error.getResponse()).toMatchObject({ message: ['limit must be an integer number'] });
  });
});
