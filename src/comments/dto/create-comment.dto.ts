import { TextField } from '../../common/validators/text-field.decorator';

/** Limits of the comment fields, in Unicode code points. */
export const COMMENT_LIMITS = {
  author: { min: 1, max: 100 },
  body: { min: 1, max: 10_000 },
} as const;

/** Body of `POST /api/v1/blogs/:id/comments`: exactly `author` and `body`, stored as sent. */
export class CreateCommentDto {
  @TextField({ ...COMMENT_LIMITS.author, description: "The commenter's name as shown.", example: 'Bob' })
  readonly author!: string;

  @TextField({ ...COMMENT_LIMITS.body, description: 'The text of the comment.', example: 'Nice post.' })
  readonly body!: string;
}
