import { ApiProperty } from '@nestjs/swagger';
import { ListEnvelopeOf } from '../../common/paging/list-envelope.dto';
import { SLUG_PATTERN } from '../../common/text/slug';
import { ClosedSchema } from '../../openapi/schema-rules';
import type { CountedTag } from '../counted-tag';
import { TAG_LIMITS } from '../tag-limits';

/** A tag as clients see it, with the number of its live blogs. */
@ClosedSchema()
export class TagResponse {
  @ApiProperty({
    minLength: 1,
    maxLength: TAG_LIMITS.slug.max,
    pattern: SLUG_PATTERN.source,
    description: 'Made from the name: transliterated to ASCII, lower case, other characters as single `-`.',
    example: 'nestjs',
  })
  readonly slug!: string;

  @ApiProperty({
    minLength: TAG_LIMITS.name.min,
    maxLength: TAG_LIMITS.name.max,
    description: 'The first name any blog gave for this slug.',
    example: 'NestJS',
  })
  readonly name!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description:
      'Number of published blogs (published now or earlier) with this tag; drafts and scheduled blogs are not counted.',
    example: 3,
  })
  readonly count!: number;
}

/** The tag list envelope: one page of tags, the number of all tags listed and the effective paging. */
@ClosedSchema()
export class TagListResponse extends ListEnvelopeOf(
  TagResponse,
  {
    plural: 'tags',
    data: 'The page, in the order of `sort` (most blogs first by default).',
    total: 'Number of all tags with at least one published blog (not only this page).',
  },
  { cursors: false },
) {}

/** The public shape of a counted tag. */
export function toTagResponse({ slug, name, count }: CountedTag): TagResponse {
  return { slug, name, count };
}
