import type { Response } from 'express';
import { withEntityTag } from '../common/http/origin-freshness';
import { versionedEntityTag } from '../common/http/versioned-entity-tag';
import type { Comment } from './comment.entity';
import { CommentResponse, toCommentResponse } from './dto/comment-response.dto';

/** One comment with its `ETag`: `"<id>-1"`, as a comment is never changed. */
export function commentAnswer(comment: Comment, response: Response): CommentResponse {
  return withEntityTag(response, versionedEntityTag({ id: comment.id, version: 1 }), toCommentResponse(comment));
}
