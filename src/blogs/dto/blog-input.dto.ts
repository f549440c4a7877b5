import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, Matches, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { parseRfc3339DateTime } from '../../common/rfc3339';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../../common/text/slug';
import { CodePointLength } from '../../common/validators/code-point-length.decorator';
import { IsSafeText } from '../../common/validators/is-safe-text.decorator';
import { TextField } from '../../common/validators/text-field.decorator';
import { TAG_LIMITS } from '../../tags/tag-limits';
import { BLOG_STATUSES, BlogStatus } from '../blog-status';

/** Most tags a blog has. */
export const MAX_TAGS = 20;

/** Limits of the blog fields, in Unicode code points. */
export const BLOG_LIMITS = {
  title: { min: 1, max: 200 },
  author: { min: 1, max: 100 },
  content: { min: 1, max: 100_000 },
} as const;

/** The instants `publishedAt` may name. */
export const PUBLISHED_AT_RANGE = {
  min: new Date('1970-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
} as const;

/** `@Transform` callback: an RFC 3339 date-time in {@link PUBLISHED_AT_RANGE} becomes a `Date`, cut to the millisecond. */
function toPublicationInstant({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const instant = parseRfc3339DateTime(value, 'floor');
  return instant && instant >= PUBLISHED_AT_RANGE.min ? instant : value;
}

/** Validates only a property the body has: absent stays absent, `null` is checked like any value. */
const IfPresent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/**
 * The body of create and update: `title`, `content` and `author`, stored as sent, and the optional `status`,
 * `publishedAt` and `slug` (docs/api.md, "Publishing"). The most basic check sits at the bottom (docs/architecture.md,
 * "Request flow": rules run bottom-up, the first failure reported).
 */
export class BlogInputDto {
  @TextField({ ...BLOG_LIMITS.title, description: 'The title.', example: 'Hello' })
  readonly title!: string;

  @TextField({ ...BLOG_LIMITS.content, description: 'The text.', example: 'First post' })
  readonly content!: string;

  @TextField({ ...BLOG_LIMITS.author, description: "The author's name.", example: 'Alice' })
  readonly author!: string;

  @ApiPropertyOptional({
    enum: BLOG_STATUSES,
    description:
      '`draft` keeps the blog from readers; `published` publishes it now (or at `publishedAt`); `scheduled` publishes ' +
      'it at `publishedAt`, a future instant. Without it a new blog is published at once and an update keeps the ' +
      'status.',
  })
  @IsIn(BLOG_STATUSES, { message: `status must be one of ${BLOG_STATUSES.join(', ')}` })
  @IfPresent()
  readonly status?: BlogStatus;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'When the blog is published: an RFC 3339 date-time with `Z` or an offset, from 1970-01-01T00:00:00Z to ' +
      '9999-12-31T23:59:59.999Z, digits past the millisecond cut; `null` only with status `draft`. A past instant ' +
      'is live at once (backdated), a future one scheduled.',
    example: '2026-12-01T09:00:00Z',
  })
  @ValidateBy({
    name: 'isPublicationInstant',
    validator: {
      validate: (value: unknown): boolean => value === null || value instanceof Date,
      defaultMessage: () =>
        'publishedAt must be an RFC 3339 date-time with Z or an offset, from 1970-01-01T00:00:00Z to ' +
        '9999-12-31T23:59:59.999Z, or null',
    },
  })
  @Transform(toPublicationInstant)
  @IfPresent()
  readonly publishedAt?: Date | null;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: SLUG_MAX_LENGTH,
    pattern: SLUG_PATTERN.source,
    description:
      "The blog's URL name, unique among all blogs: lower-case ASCII letters and digits in runs joined by single " +
      "`-`. Without it a new blog gets one made from its title; another blog's current slug is 409.",
    example: 'hello-world',
  })
  @Matches(SLUG_PATTERN, {
    message: 'slug must be lower-case letters a-z and digits in runs joined by single hyphens, e.g. hello-world',
  })
  @MaxLength(SLUG_MAX_LENGTH, { message: `slug must be at most ${SLUG_MAX_LENGTH} characters long` })
  @IsString()
  @IfPresent()
  readonly slug?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TAGS,
    description:
      `The names of the blog's tags, 0–${MAX_TAGS}, each ${TAG_LIMITS.name.min}–${TAG_LIMITS.name.max} characters with a ` +
      'letter or digit, not whitespace only, no U+0000. Replaces its tags; names with the same tag slug count once (the ' +
      'first stays), and a tag keeps the first name any blog gave it.',
    example: ['NestJS', 'Databases'],
  })
  @IsSafeText({ each: true })
  @CodePointLength(TAG_LIMITS.name.min, TAG_LIMITS.name.max, { each: true })
  @IsString({ each: true })
  @ArrayMaxSize(MAX_TAGS, { message: `tags must have at most ${MAX_TAGS} names` })
  @IsArray({ message: 'tags must be an array of names' })
  @IfPresent()
  readonly tags?: string[];
}
