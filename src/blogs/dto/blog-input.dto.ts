import { IsDefined, IsString } from 'class-validator';
import { CodePointLength } from '../../common/validators/code-point-length.decorator';
import { IsSafeText } from '../../common/validators/is-safe-text.decorator';

/** Limits of the blog fields, in characters (Unicode code points), from the API contract. */
export const BLOG_LIMITS = {
  title: { min: 1, max: 200 },
  author: { min: 1, max: 100 },
  content: { min: 1, max: 100_000 },
} as const;

/**
 * The body of create and update: exactly `title`, `content` and `author`, all required JSON
 * strings (spec §4.3, §4.4). Strings are stored as sent: no trimming, no escaping.
 *
 * class-validator runs a property's decorators bottom-up and the global pipe stops at a
 * property's first failure, so the most basic check (present, then string) sits at the bottom.
 */
export class BlogInputDto {
  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.title.min, BLOG_LIMITS.title.max)
  @IsString()
  @IsDefined()
  readonly title!: string;

  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.content.min, BLOG_LIMITS.content.max)
  @IsString()
  @IsDefined()
  readonly content!: string;

  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.author.min, BLOG_LIMITS.author.max)
  @IsString()
  @IsDefined()
  readonly author!: string;
}
