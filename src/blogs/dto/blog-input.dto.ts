import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { CodePointLength } from '../../common/validators/code-point-length.decorator';
import { IsSafeText } from '../../common/validators/is-safe-text.decorator';

/** Limits of the blog fields, in Unicode code points. */
export const BLOG_LIMITS = {
  title: { min: 1, max: 200 },
  author: { min: 1, max: 100 },
  content: { min: 1, max: 100_000 },
} as const;

// The swagger plugin cannot read custom validators, so their rules are written out for OpenAPI.
const TEXT_RULES = 'A JSON string stored exactly as sent; not whitespace only, no U+0000, no lone surrogates.';

interface TextSchema {
  readonly type: StringConstructor;
  readonly minLength: number;
  readonly maxLength: number;
}

const textSchema = (limits: { readonly min: number; readonly max: number }): TextSchema => ({
  type: String,
  minLength: limits.min,
  maxLength: limits.max,
});

/**
 * The body of create and update: exactly `title`, `content` and `author`, stored as sent.
 * Decorators run bottom-up and stop at the first failure: the most basic check sits at the bottom.
 */
export class BlogInputDto {
  @ApiProperty({ ...textSchema(BLOG_LIMITS.title), description: `The title. ${TEXT_RULES}`, example: 'Hello' })
  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.title.min, BLOG_LIMITS.title.max)
  @IsString()
  @IsDefined()
  readonly title!: string;

  @ApiProperty({ ...textSchema(BLOG_LIMITS.content), description: `The text. ${TEXT_RULES}`, example: 'First post' })
  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.content.min, BLOG_LIMITS.content.max)
  @IsString()
  @IsDefined()
  readonly content!: string;

  @ApiProperty({ ...textSchema(BLOG_LIMITS.author), description: `The author's name. ${TEXT_RULES}`, example: 'Alice' })
  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.author.min, BLOG_LIMITS.author.max)
  @IsString()
  @IsDefined()
  readonly author!: string;
}
