import { ApiProperty } from '@nestjs/swagger';
import { ListEnvelopeOf } from '../../common/paging/list-envelope.dto';
import { IdProperty, InstantProperty } from '../../openapi/schema-properties';
import { ClosedSchema } from '../../openapi/schema-rules';
import type { Comment } from '../comment.entity';
import { COMMENT_LIMITS } from './create-comment.dto';

/** A comment as clients see it (a class so that `@nestjs/swagger` can describe it); its owner is never shown. */
@ClosedSchema()
export class CommentResponse {
  @IdProperty({ description: 'Assigned by the service.', example: 41 })
  readonly id!: number;

  @IdProperty({ description: 'The blog commented on.', example: 17 })
  readonly blogId!: number;

  @ApiProperty({
    minLength: COMMENT_LIMITS.author.min,
    maxLength: COMMENT_LIMITS.author.max,
    description: 'The name the commenter gave; not checked against the token.',
    example: 'Bob',
  })
  readonly author!: string;

  @ApiProperty({ minLength: COMMENT_LIMITS.body.min, maxLength: COMMENT_LIMITS.body.max, example: 'Nice post.' })
  readonly body!: string;

  @InstantProperty({
    description: 'Creation time; ISO 8601 UTC with milliseconds and `Z`, from the database clock.',
    example: '2026-11-28T09:00:00.000Z',
  })
  readonly createdAt!: Date;
}

/** A deleted comment in its `comment.deleted` event. */
@ClosedSchema()
export class DeletedCommentResponse {
  @IdProperty({ example: 41 })
  readonly id!: number;

  @IdProperty({ description: 'The blog it was on.', example: 17 })
  readonly blogId!: number;
}

/** The list envelope: one page of a blog's comments, oldest first, the exact total and the next page's cursor. */
@ClosedSchema()
export class CommentListResponse extends ListEnvelopeOf(CommentResponse, {
  plural: 'comments',
  data: 'The page, oldest first (`createdAt`, then `id`, ascending).',
  total: "Number of all the blog's comments (not only this page).",
}) {}

/** The public shape of a comment: without its owner. */
export function toCommentResponse(comment: Omit<Comment, 'ownerSub'>): CommentResponse {
  const { id, blogId, author, body, createdAt } = comment;
  return { id, blogId, author, body, createdAt };
}
