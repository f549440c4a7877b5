import { IsDefined, IsString, Length } from 'class-validator';
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
 */
export class BlogInputDto {
  @IsDefined()
  @IsString()
  @Length(BLOG_LIMITS.title.min, BLOG_LIMITS.title.max)
  @IsSafeText()
  readonly title!: string;

  @IsDefined()
  @IsString()
  @Length(BLOG_LIMITS.content.min, BLOG_LIMITS.content.max)
  @IsSafeText()
  readonly content!: string;

  @IsDefined()
  @IsString()
  @Length(BLOG_LIMITS.author.min, BLOG_LIMITS.author.max)
  @IsSafeText()
  readonly author!: string;
}
