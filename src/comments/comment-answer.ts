import type { Response } from 'express';
import { versionedEntityTag } from '../common/http/versioned-entity-tag';
import type { Comment } from './comment.entity';
import { CommentResponse, toCommentResponse } from './dto/comment-response.dto';

/** One comment with its `ETag`: `"<id>-1"`, as a comment is never changed. */
export function commentAnswer(comment: Comment, response: Response): CommentResponse {
  response.setHeader('ETag', versionedEntityTag({ id: comment.id, version: 1 }));
  return toCommentResponse(comment);
}
