import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, ValidateBy } from 'class-validator';
import { BLOG_LIMITS } from '../../blogs/dto/blog-input.dto';
import { PageCursor } from '../../common/paging/paging-query';
import { isSlug } from '../../common/text/slug';
import { CodePointLength } from '../../common/validators/code-point-length.decorator';
import { IsSafeText } from '../../common/validators/is-safe-text.decorator';
import { TAG_LIMITS } from '../../tags/tag-limits';

/** Query of `GET /api/v1/feeds/blogs.{atom,rss,json}`: the filters and the cursor; any other parameter is 400. */
export class FeedQueryDto {
  @ApiPropertyOptional({
    maxLength: TAG_LIMITS.slug.max,
    description: 'Only blogs with this tag, by its slug (`nestjs`). An unknown tag gives a feed without entries.',
  })
  @ValidateBy({
    name: 'isTagSlug',
    validator: {
      validate: (value: unknown): boolean => typeof value !== 'string' || isSlug(value, TAG_LIMITS.slug.max),
      defaultMessage: () =>
        `tag must be one tag slug of at most ${TAG_LIMITS.slug.max} characters (lower-case letters a-z and digits ` +
        'in runs joined by single hyphens), e.g. nestjs',
    },
  })
  @IsString()
  @IsOptional()
  readonly tag?: string;

  @ApiPropertyOptional({
    minLength: BLOG_LIMITS.author.min,
    maxLength: BLOG_LIMITS.author.max,
    description:
      "Only blogs whose `author` equals this exactly (case-sensitive), as the list's `author`. E.g. `Alice`.",
  })
  @IsSafeText()
  @CodePointLength(BLOG_LIMITS.author.min, BLOG_LIMITS.author.max)
  @IsString()
  @IsOptional()
  readonly author?: string;

  @PageCursor(
    'The cursor of a `next` link of this feed (same format, `tag` and `author`), to continue after its last entry ' +
      '(RFC 5005 §3).',
  )
  readonly cursor?: string;
}
