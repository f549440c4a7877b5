import { Injectable } from '@nestjs/common';
import { rowMapper } from '../database/entity-rows';
import { EventPresenter, EventResource, StoredEvent } from '../events/event-resource';
import { blogCommentsKey, commentEventKeys } from './comment-surrogate-keys';
import { Comment } from './comment.entity';
import { CommentResponse, DeletedCommentResponse, toCommentResponse } from './dto/comment-response.dto';

/** What a change did to a comment. A blog's deletion takes its comments without events of theirs. */
export const COMMENT_EVENT_TYPES = ['comment.created', 'comment.deleted'] as const;

/** A `comment.created` event's data: the row by column name. */
const commentOf = rowMapper(Comment);

/**
 * The comments' events (docs/api.md, "Comments"): a trigger on `comments` writes the row by column name
 * (`{id, blog_id}` for a deletion) in the writer's transaction; here each becomes the comment as the API shows it.
 */
@EventResource({
  resource: 'comment',
  types: COMMENT_EVENT_TYPES,
  schemas: [CommentResponse, DeletedCommentResponse],
  description: 'The comment as created; only `id` and `blogId` for `comment.deleted`.',
  // A blog's events change its comment list too (unpublished, deleted: the list is gone).
  purgedBy: { blog: ({ data }) => [blogCommentsKey(data.id as number)] },
})
@Injectable()
export class CommentEvents implements EventPresenter {
  /** `events`' comments; a deletion as `{id, blogId}`. */
  async present(events: readonly StoredEvent[]): Promise<(CommentResponse | DeletedCommentResponse)[]> {
    return Promise.resolve(
      events.map(({ type, data }) =>
        type === 'comment.deleted'
          ? { id: data.id as number, blogId: data.blog_id as number }
          : toCommentResponse(commentOf(data)),
      ),
    );
  }

  /** A comment's events take back its answer and its blog's comment list. */
  surrogateKeys({ data }: StoredEvent): string[] {
    return commentEventKeys(data.id as number, data.blog_id as number);
  }
}
