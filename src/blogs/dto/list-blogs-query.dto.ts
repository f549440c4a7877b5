import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsOptional, IsString, ValidateBy } from 'class-validator';
import { EnumParam } from '../../common/http/enum-param.decorator';
import { PageCursor, PageLimit, PageOffset, PAGING } from '../../common/paging/paging-query';
import { MillisecondRounding, parseRfc3339DateTime } from '../../common/rfc3339';
import { CodePointLength } from '../../common/validators/code-point-length.decorator';
import { IsSafeText } from '../../common/validators/is-safe-text.decorator';
import {
  BLOG_RESPONSE_FIELDS,
  BLOG_SORTS,
  BlogSort,
  DEFAULT_BLOG_SORT,
  MAX_SEARCH_TERMS,
  MAX_TAG_FILTER,
  parseFieldList,
  parseTagList,
  SEARCH_TOTAL_CAP,
} from '../blog-list';
import { BLOG_LIST_STATUSES, BlogListStatus } from '../blog-status';
import { BLOG_LIMITS } from './blog-input.dto';

/** Lengths of the filter values, in Unicode code points. */
const FILTER_LIMITS = { author: BLOG_LIMITS.author, q: { min: 1, max: 200 } } as const;

const DATE_TIME_EXAMPLE = '2026-11-22T10:00:00Z';
const DATE_TIME_RULE =
  'An RFC 3339 date-time with `Z` or an offset (`2026-11-22T10:00:00Z`, `2026-11-22T11:00:00+01:00`, fractions ' +
  'allowed), between years 0001 and 9999 in UTC.';

/** `@Transform` callback: an RFC 3339 date-time becomes a `Date` rounded as `rounding` says; anything else stays for `@IsDate()`. */
const toInstant =
  (rounding: MillisecondRounding) =>
  ({ value }: { value: unknown }): unknown =>
    (typeof value === 'string' && parseRfc3339DateTime(value, rounding)) || value;

const dateTimeMessage = (name: string): string =>
  `${name} must be an RFC 3339 date-time with Z or an offset, e.g. ${DATE_TIME_EXAMPLE}, between years 0001 and 9999`;

/**
 * Query of `GET /api/v1/blogs`; decorators run bottom-up, so the type check comes first. Each value is
 * checked here except what only PostgreSQL can tell (whether `q` has a word) and the cursor's signature.
 */
export class ListBlogsQueryDto {
  @PageLimit()
  readonly limit: number = PAGING.defaultLimit;

  @PageOffset('blogs')
  readonly offset?: number;

  @ApiPropertyOptional({
    minLength: FILTER_LIMITS.author.min,
    maxLength: FILTER_LIMITS.author.max,
    description:
      'Only blogs whose `author` equals this exactly (case-sensitive). Follows the rules of the `author` field: ' +
      'not whitespace only, no U+0000. E.g. `Alice`.',
  })
  @IsSafeText()
  @CodePointLength(FILTER_LIMITS.author.min, FILTER_LIMITS.author.max)
  @IsString()
  @IsOptional()
  readonly author?: string;

  @ApiPropertyOptional({
    minLength: FILTER_LIMITS.q.min,
    maxLength: FILTER_LIMITS.q.max,
    description:
      "Full-text search of `title` and `content` with PostgreSQL's `websearch_to_tsquery('simple', q)`: whole " +
      'words, any letter case; every word must occur; `"a phrase"` for adjacent words, `-word` excludes, `or` ' +
      'between alternatives (`hello -draft`). A `q` without any word (e.g. `!!!`), with more than ' +
      `${MAX_SEARCH_TERMS} words or with a word twice (\`a a\`, \`a -a\`) is 400. \`total\` is exact up to ` +
      `${SEARCH_TOTAL_CAP} matches; past that it is ${SEARCH_TOTAL_CAP} with \`totalRelation: "gte"\`.`,
  })
  @IsSafeText()
  @CodePointLength(FILTER_LIMITS.q.min, FILTER_LIMITS.q.max)
  @IsString()
  @IsOptional()
  readonly q?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: `Only blogs created strictly after this instant. ${DATE_TIME_RULE}`,
  })
  @Transform(toInstant('floor'))
  @IsDate({ message: dateTimeMessage('createdAfter') })
  @IsOptional()
  readonly createdAfter?: Date;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: `Only blogs created strictly before this instant. ${DATE_TIME_RULE}`,
  })
  @Transform(toInstant('ceil'))
  @IsDate({ message: dateTimeMessage('createdBefore') })
  @IsOptional()
  readonly createdBefore?: Date;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: `Only blogs updated strictly after this instant (what changed since). ${DATE_TIME_RULE}`,
  })
  @Transform(toInstant('floor'))
  @IsDate({ message: dateTimeMessage('updatedAfter') })
  @IsOptional()
  readonly updatedAfter?: Date;

  @ApiPropertyOptional({
    description:
      `Only blogs that have every one of these tags: 1–${MAX_TAG_FILTER} tag slugs, comma-separated ` +
      '(`nestjs,databases`).',
  })
  @ValidateBy({
    name: 'isTagList',
    validator: {
      validate: (value: unknown): boolean => typeof value !== 'string' || parseTagList(value) !== undefined,
      defaultMessage: () =>
        `tag must be 1 to ${MAX_TAG_FILTER} comma-separated tag slugs (lower-case letters a-z and digits in runs ` +
        'joined by single hyphens), e.g. nestjs,databases',
    },
  })
  @IsString()
  @IsOptional()
  readonly tag?: string;

  @EnumParam(BLOG_LIST_STATUSES, {
    default: 'published',
    description:
      'Which blogs by status: `published` (live, for everyone), or `draft`, `scheduled` or `any`, which need a ' +
      "bearer token (401 without) and list the caller's own blogs (every owner's with `blogs:admin`).",
  })
  readonly status: BlogListStatus = 'published';

  @EnumParam(BLOG_SORTS, {
    default: DEFAULT_BLOG_SORT,
    description:
      'The order: a field, descending with `-`. Ties are broken by `id` in the same direction; `title` compares ' +
      'code points; `publishedAt` puts drafts last in either direction.',
  })
  readonly sort: BlogSort = DEFAULT_BLOG_SORT;

  @ApiPropertyOptional({
    description:
      `Comma-separated, distinct names among ${BLOG_RESPONSE_FIELDS.join(', ')}: each item of \`data\` has exactly ` +
      'these fields (`id,title,createdAt`). All of them without it.',
  })
  @ValidateBy({
    name: 'isFieldList',
    validator: {
      validate: (value: unknown): boolean => typeof value !== 'string' || parseFieldList(value) !== undefined,
      defaultMessage: () =>
        `fields must be a comma-separated list of distinct names among ${BLOG_RESPONSE_FIELDS.join(', ')}`,
    },
  })
  @IsString()
  @IsOptional()
  readonly fields?: string;

  @PageCursor(
    'The `nextCursor` of an earlier answer, to continue after its last blog, with the same `author`, `q`, ' +
      '`createdAfter`, `createdBefore`, `updatedAfter`, `status` and `sort` (`limit` and `fields` may change). Not ' +
      'with `offset`.',
  )
  readonly cursor?: string;
}
