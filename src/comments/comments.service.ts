import { ConflictException, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { BlogVisibility } from '../blogs/blog-visibility';
import { BLOGS_ADMIN_SCOPE } from '../blogs/blogs.constants';
import { conditionalWrite } from '../common/http/conditional-write';
import { ResourceWording } from '../common/http/write-refusal';
import type { ListPage } from '../common/paging/list-envelope';
import type { PageRequest } from '../common/paging/page';
import { COMMENT_SORT, CommentListCursors } from './comment-list-cursor';
import type { Comment } from './comment.entity';
import { CommentsRepository } from './comments.repository';
import type { CreateCommentDto } from './dto/create-comment.dto';

/** How errors name a comment. */
export const COMMENT_WORDING: ResourceWording = {
  title: 'Comment',
  noun: 'comment',
  adminScope: BLOGS_ADMIN_SCOPE,
  otherWriters: 'the owner of its blog',
};

/** How many times a delete runs again when the comment changed hands between its statement and the read after it. */
const DELETE_ATTEMPTS = 3;

/** The rules of comments: a blog's visibility decides theirs; only live blogs take new ones; who may delete one. */
@Injectable()
export class CommentsService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly cursors: CommentListCursors,
    private readonly visibility: BlogVisibility,
  ) {}

  /**
   * A page of blog `blogId`'s comments, oldest first, with their exact total; `nextCursor` when more follow.
   * @throws BadRequestException naming `cursor` when it does not continue this blog's comments; NotFoundException
   *   when no blog has this id or `principal` may not read it at `now`.
   */
  async list(
    blogId: number,
    request: PageRequest,
    principal: Principal | undefined,
    now: Date,
  ): Promise<ListPage<Comment>> {
    return this.cursors.page(
      request,
      COMMENT_SORT,
      { blogId },
      async (window) => {
        const page = await this.comments.findPage(blogId, window);
        this.visibility.readable(page.blog, blogId, principal, now);
        return page;
      },
      (comment) => ({ id: comment.id, value: comment.createdAt }),
    );
  }

  /** @throws NotFoundException when no comment has this id, or `principal` may not read its blog at `now`. */
  async findOne(id: number, principal: Principal | undefined, now: Date): Promise<Comment> {
    return this.visibility.visible(await this.comments.findById(id), principal, now, COMMENT_WORDING, id).comment;
  }

  /**
   * Stores `input` as a comment of `principal` on blog `blogId`, live at `now`.
   * @throws NotFoundException when no blog has this id (also one deleted meanwhile), or `principal` may not read it;
   *   ConflictException (409) when it may, but the blog is a draft or scheduled.
   */
  async create(blogId: number, input: CreateCommentDto, principal: Principal, now: Date): Promise<Comment> {
    const { author, body } = input;
    const stored = await this.comments
      .insert({ blogId, author, body, ownerSub: principal.sub }, now)
      .catch(this.visibility.goneAsNotFound(blogId));
    if (stored.comment) return stored.comment;
    this.visibility.readable(stored.blog, blogId, principal, now);
    throw new ConflictException(`Blog ${blogId} is not published: only a published blog takes comments`);
  }

  /**
   * Deletes the comment in one statement that also checks its blog's visibility and who asks: the comment's owner,
   * its blog's owner, or `blogs:admin`; only when it deleted nothing is the comment read again to choose the error.
   * @throws NotFoundException (404, also when `principal` may not read the blog), ForbiddenException (403).
   */
  async remove(id: number, principal: Principal, now: Date): Promise<void> {
    const reader = this.visibility.reader(principal);
    await conditionalWrite({
      wording: COMMENT_WORDING,
      id,
      owner: reader ?? undefined,
      action: 'delete',
      // The blog may become readable between the delete and the read again (published meanwhile): delete again.
      attempts: DELETE_ATTEMPTS,
      write: () => this.comments.delete(id, reader, now),
      current: async () => {
        // On the primary: a replica may not have the write that made the delete fail yet.
        const found = await this.comments.findById(id, 'primary');
        return found && this.visibility.mayRead(found.blog, principal, now)
          ? { ownerSub: found.comment.ownerSub, otherWriterSubs: [found.blog.ownerSub] }
          : null;
      },
    });
  }
}
