import { ApiProperty, IntersectionType, PickType } from '@nestjs/swagger';
import { INT4_MAX } from '../../common/canonical-integer';
import { ListEnvelopeOf } from '../../common/paging/list-envelope.dto';
import { BlogResponse } from '../../blogs/dto/blog-response.dto';
import { ClosedSchema } from '../../openapi/schema-rules';
import type { FullRevision, Revision } from '../revisions.repository';

/** The properties a revision keeps, as `changed` names them. */
export const REVISED_PROPERTIES = ['title', 'content', 'author', 'tags'] as const;
export type RevisedProperty = (typeof REVISED_PROPERTIES)[number];

/** A revision in a list: all but its `content`. */
@ClosedSchema()
export class RevisionSummaryResponse extends PickType(BlogResponse, ['title', 'author', 'tags'] as const) {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: INT4_MAX,
    description: 'The blog\'s version after the write that made it: the one its `ETag` named (`"<id>-<version>"`).',
    example: 3,
  })
  readonly version!: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: "The write's time; ISO 8601 UTC with milliseconds and `Z`, from the database clock.",
    example: '2026-11-29T09:00:00.000Z',
  })
  readonly createdAt!: Date;

  @ApiProperty({
    enum: REVISED_PROPERTIES,
    isArray: true,
    description: 'The properties that differ from the revision before it (all four for the first).',
    example: ['title', 'content'],
  })
  readonly changed!: RevisedProperty[];
}

/** A revision: the blog's `title`, `content`, `author` and `tags` after one write, and what that write changed. */
@ClosedSchema()
export class RevisionResponse extends IntersectionType(RevisionSummaryResponse, PickType(BlogResponse, ['content'])) {}

/** The list envelope: one page of a blog's kept revisions, newest first, the exact total and the next page's cursor. */
@ClosedSchema()
export class RevisionListResponse extends ListEnvelopeOf(RevisionSummaryResponse, {
  plural: 'revisions',
  data: 'The page, newest first (`version` descending), each revision without its `content`.',
  total: "Number of all the blog's kept revisions (not only this page).",
}) {}

/** A revision in a list, in the contract's order of properties. */
export function toRevisionSummary(revision: Revision): RevisionSummaryResponse {
  const { version, title, author, tags, createdAt, changed } = revision;
  return { version, title, author, tags: [...tags], createdAt, changed: changed as RevisedProperty[] };
}

/** A revision with its `content`, in the contract's order of properties. */
export function toRevisionResponse(revision: FullRevision): RevisionResponse {
  const { version, title, content, author, tags, createdAt, changed } = revision;
  return { version, title, content, author, tags: [...tags], createdAt, changed: changed as RevisedProperty[] };
}
