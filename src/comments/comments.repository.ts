import { Injectable } from '@nestjs/common';
import { Row, rowMapper, selectedColumns } from '../database/entity-rows';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import { BlogAccess, BlogVisibility, whileBlogExists } from '../blogs/blog-visibility';
import type { CommentListPosition } from './comment-list-cursor';
import { Comment } from './comment.entity';
import { FetchedPage, pageOfRows, pageWithTotalSql, PageWindow, perKey } from '../common/paging/page';

/** A comment's columns, of the row `c`. */
const COLUMNS = selectedColumns(Comment, 'c');
const commentOf = rowMapper(Comment);

/**
 * The statements of comments, each reading with the comments the columns of `visibility` that decide who may read their
 * blog `b`.
 */
function statementsOf(visibility: BlogVisibility) {
  const access = visibility.columns('b');
  /** SQL: blog $1 and its comment count, with the page of its comments that `where` and `paging` select, oldest first. */
  const page = (where: string, paging: string): string =>
    pageWithTotalSql(
      `${access}, COALESCE((SELECT "n" FROM "comment_counts" WHERE "blog_id" = $1), 0) AS "total"`,
      `"blogs" b`,
      `SELECT ${COLUMNS} FROM "comments" c WHERE c."blog_id" = b."id"${where} ORDER BY c."created_at", c."id" ${paging}`,
      ` WHERE b."id" = $1 ORDER BY p."created_at", p."id"`,
    );
  return {
    /**
     * Stores the comment ($2 author, $3 body, $4 owner) on blog $1 only if it is live at $5, in one statement that also
     * answers who may read the blog; one row without a comment when the blog is not live, none without the blog. A
     * blog deleted meanwhile fails the foreign key.
     */
    insert: {
      name: 'comments.insert',
      text: `WITH "blog" AS (SELECT "id", "owner_sub", "published_at" FROM "blogs" WHERE "id" = $1),
      "stored" AS (INSERT INTO "comments" ("blog_id", "author", "body", "owner_sub")
        SELECT "id", $2, $3, $4 FROM "blog" WHERE ${visibility.liveCondition('"blog"', '$5')}
        RETURNING "id", "blog_id", "author", "body", "owner_sub", "created_at")
      SELECT ${access}, c.* FROM "blog" b LEFT JOIN "stored" c ON true`,
    },
    /** The comment $1 and who may read its blog. */
    findById: {
      name: 'comments.find-by-id',
      text: `SELECT ${COLUMNS}, ${access} FROM "comments" c JOIN "blogs" b ON b."id" = c."blog_id" WHERE c."id" = $1`,
    },
    /** Blog $1, its comment count and $2 of its comments after $3 of them. */
    pageAtOffset: { name: 'comments.page', text: page('', 'LIMIT $2 OFFSET $3') },
    /**
     * Blog $1, its comment count and its first `rows` comments, or (`after`) its `rows` comments after the one created
     * at $2 with id $3. `rows` is written into the text, one statement per page size: with `LIMIT $n` PostgreSQL prices
     * the generic plan for a tenth of the blog's comments and plans every request anew (docs/performance.md, "A blog's
     * first comments").
     */
    pageOf: (rows: number, after: boolean): PreparedStatement => ({
      name: `comments.${after ? 'page-after' : 'first-page'}.${rows}`,
      text: page(
        after ? ` AND (c."created_at", c."id") > ($2::timestamptz, $3::int4)` : '',
        `LIMIT ${Math.trunc(rows)}`,
      ),
    }),
    /**
     * Deletes comment $1 when reader $2 ({@link BlogVisibility.reader}) may read its blog at $3 and owns the comment
     * or the blog; $2 null (an admin): any comment.
     */
    delete: {
      name: 'comments.delete',
      text: `DELETE FROM "comments" c USING "blogs" b WHERE c."id" = $1 AND b."id" = c."blog_id"
        AND ($2::text IS NULL OR c."owner_sub" = $2 OR b."owner_sub" = $2) AND ${visibility.condition('b', '$2', '$3')}`,
    },
  } satisfies Record<string, PreparedStatement | ((rows: number, after: boolean) => PreparedStatement)>;
}

/** The foreign keys a comment's insert meets when its blog is deleted meanwhile (its own, its counter's). */
const BLOG_FOREIGN_KEYS = ['FK_comments_blog_id', 'FK_comment_counts_blog_id'];

/** A comment and who may read its blog. */
export interface CommentWithBlog {
  readonly comment: Comment;
  readonly blog: BlogAccess;
}

/** A comment to store. */
export type NewComment = Pick<Comment, 'blogId' | 'author' | 'body' | 'ownerSub'>;

/** What an insert found: the blog (null: none), and the comment stored (null: the blog is not live). */
export interface CommentInsert {
  readonly blog: BlogAccess | null;
  readonly comment: Comment | null;
}

/** A page of a blog's comments and the blog (null: none). */
export interface CommentPage extends FetchedPage<Comment> {
  readonly blog: BlogAccess | null;
}

/** Where a read goes: a replica within its lag bound (else the primary), or the primary, which has every write. */
type ReadSource = 'replica' | 'primary';

/**
 * Data access of comments, each method one named statement through {@link StatementRunner}: reads on the replicas
 * unless told otherwise, writes on the primary. Each reads with the comments who may read their blog.
 */
@Injectable()
export class CommentsRepository {
  private readonly statements: ReturnType<typeof statementsOf>;
  /** The statements of a first page, and of a cursor's page, by rows read, made when first used. */
  private readonly firstPages: (rows: number) => PreparedStatement;
  private readonly pagesAfter: (rows: number) => PreparedStatement;

  constructor(
    private readonly sql: StatementRunner,
    private readonly visibility: BlogVisibility,
  ) {
    this.statements = statementsOf(visibility);
    this.firstPages = perKey((rows) => this.statements.pageOf(rows, false));
    this.pagesAfter = perKey((rows) => this.statements.pageOf(rows, true));
  }

  /**
   * Stores `comment` if its blog is live at `now`; the database assigns `id` and `createdAt`.
   * @throws BlogGoneError when the blog was deleted while the statement ran.
   */
  async insert(comment: NewComment, now: Date): Promise<CommentInsert> {
    const { blogId, author, body, ownerSub } = comment;
    const statement = this.sql.onPrimary<Row>(this.statements.insert, [blogId, author, body, ownerSub, now]);
    const { rows } = await whileBlogExists(blogId, BLOG_FOREIGN_KEYS, statement);
    if (rows.length === 0) return { blog: null, comment: null };
    return { blog: this.visibility.accessOf(rows[0]), comment: rows[0].id === null ? null : commentOf(rows[0]) };
  }

  /** The comment with this id and who may read its blog, or null, read from `source`. */
  async findById(id: number, source: ReadSource = 'replica'): Promise<CommentWithBlog | null> {
    const { rows } =
      source === 'primary'
        ? await this.sql.onPrimary<Row>(this.statements.findById, [id])
        : await this.sql.onReplica<Row>(this.statements.findById, [id]);
    return rows.length === 0 ? null : { comment: commentOf(rows[0]), blog: this.visibility.accessOf(rows[0]) };
  }

  /** A page of blog `blogId`'s comments, oldest first (`createdAt`, then `id`), its exact total and the blog. */
  async findPage(blogId: number, { limit, offset, after }: PageWindow<CommentListPosition>): Promise<CommentPage> {
    const { rows } =
      after !== undefined
        ? await this.sql.onReplica<Row>(this.pagesAfter(limit + 1), [blogId, after.value, after.id])
        : offset === 0
          ? await this.sql.onReplica<Row>(this.firstPages(limit + 1), [blogId])
          : await this.sql.onReplica<Row>(this.statements.pageAtOffset, [blogId, limit + 1, offset]);
    if (rows.length === 0) return { blog: null, items: [], total: 0, more: false };
    // A blog without comments (or a page past them) is the LEFT JOIN's one row without a comment.
    return { blog: this.visibility.accessOf(rows[0]), ...pageOfRows(rows, limit, commentOf) };
  }

  /**
   * Deletes the comment if `reader` ({@link BlogVisibility.reader}; null: an admin, any comment) may read its blog at
   * `now` and owns the comment or the blog.
   * @returns whether a row was deleted.
   */
  async delete(id: number, reader: string | null, now: Date): Promise<boolean> {
    const { rowCount } = await this.sql.onPrimary(this.statements.delete, [id, reader, now]);
    return rowCount > 0;
  }
}
