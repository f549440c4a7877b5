import { Injectable } from '@nestjs/common';
import { BlogAccess, BlogVisibility } from '../blogs/blog-visibility';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import { TagsRepository } from '../tags/tags.repository';
import type { RevisionListPosition } from './revision-list-cursor';

/** A blog's revision as read, its tags named; `content` only where the read asked for it. */
export interface Revision {
  readonly version: number;
  readonly title: string;
  readonly content?: string;
  readonly author: string;
  readonly tags: readonly string[];
  readonly createdAt: Date;
  readonly changed: readonly string[];
}

/** A revision with its `content`. */
export type FullRevision = Revision & { readonly content: string };

/** A revision and who may read its blog: the blog null when none has the id, the revision null when not kept. */
export interface RevisionOfBlog {
  readonly blog: BlogAccess | null;
  readonly revision: FullRevision | null;
}

/** What a restore needs besides the revision: the blog's version and whether its text is the revision's already. */
export interface RevisionToRestore extends RevisionOfBlog {
  readonly blogVersion: number;
  readonly current: boolean;
}

/** A page of a blog's revisions, newest first: the blog (null: none), the page, the kept total, whether more follow. */
export interface RevisionPage {
  readonly blog: BlogAccess | null;
  readonly items: readonly Revision[];
  readonly total: number;
  readonly more: boolean;
}

/** A page as {@link RevisionsRepository.findPage} reads it: `limit` revisions after `offset` of them, or after `after`. */
export interface RevisionPageQuery {
  readonly limit: number;
  readonly offset: number;
  readonly after?: RevisionListPosition;
}

/** The columns of a revision `r` in a list (no `content`). */
const SUMMARY = `r."version", r."title", r."author", r."tag_slugs", r."created_at", r."changed"`;

/**
 * SQL: the `seq` that blog `b`'s kept revisions are above, its newest less the number kept ($2): the trigger prunes
 * the rest at the blog's next write, and until then (after `REVISIONS_KEPT` was lowered) they are not shown.
 */
const KEPT_ABOVE = `(SELECT max(n."seq") FROM "blog_revisions" n WHERE n."blog_id" = b."id") - $2::int`;

/** The statements of revisions, each reading with them the columns of `visibility` that decide who may read blog `b`. */
function statementsOf(visibility: BlogVisibility) {
  const access = visibility.columns('b');
  /**
   * SQL: blog $1, the number of its kept revisions (from the newest and oldest `seq`: they have no gaps) and the page
   * of them that `where` and `paging` select, newest first.
   */
  const page = (where: string, paging: string): string =>
    `SELECT ${access}, coalesce(s."total", 0) AS "total", p.* FROM "blogs" b
    CROSS JOIN LATERAL (SELECT max(n."seq") - $2::int AS "above", least(max(n."seq") - min(n."seq") + 1, $2::int) AS "total"
      FROM "blog_revisions" n WHERE n."blog_id" = b."id") s
    LEFT JOIN LATERAL (SELECT ${SUMMARY} FROM "blog_revisions" r WHERE r."blog_id" = b."id" AND r."seq" > s."above"${where}
      ORDER BY r."version" DESC ${paging}) p ON true
    WHERE b."id" = $1 ORDER BY p."version" DESC`;
  /** SQL: blog $1 and its revision $3 when kept ($2), with `extra` columns over `b` and `r`. */
  const one = (extra: string): string =>
    `SELECT ${access}${extra}, r.* FROM "blogs" b LEFT JOIN LATERAL (
      SELECT ${SUMMARY}, r."content" FROM "blog_revisions" r
      WHERE r."blog_id" = b."id" AND r."version" = $3 AND r."seq" > ${KEPT_ABOVE}) r ON true
    WHERE b."id" = $1`;
  return {
    /** Blog $1, its kept ($2) revisions' count and $3 of them after $4 of them. */
    pageAtOffset: { name: 'revisions.page', text: page('', 'LIMIT $3 OFFSET $4') },
    /** Blog $1, its kept ($2) revisions' count and $3 of them older than version $4. */
    pageAfter: { name: 'revisions.page-after', text: page(' AND r."version" < $4', 'LIMIT $3') },
    /** Blog $1 and its revision $3 if kept ($2). */
    find: { name: 'revisions.find', text: one('') },
    /** {@link find}, with the blog's version and whether the revision's text is the blog's. */
    findToRestore: {
      name: 'revisions.find-to-restore',
      text: one(`, b."version" AS "blog_version",
        (b."title", b."content", b."author", b."tag_slugs") IS NOT DISTINCT FROM (r."title", r."content", r."author", r."tag_slugs")
          AS "current"`),
    },
  } satisfies Record<string, PreparedStatement>;
}

/** Sets how many revisions of each blog the triggers keep. */
const SET_KEPT: PreparedStatement = {
  name: 'revisions.set-kept',
  text: `UPDATE "revision_settings" SET "kept" = $1 WHERE "kept" <> $1`,
};

type Row = Record<string, unknown>;

/**
 * Data access of revisions, each method one named statement through {@link StatementRunner}: reads on the replicas
 * unless told otherwise, writes on the primary. The triggers of `blogs` write them (migration `AddBlogRevisions`).
 */
@Injectable()
export class RevisionsRepository {
  private readonly statements: ReturnType<typeof statementsOf>;

  constructor(
    private readonly sql: StatementRunner,
    private readonly visibility: BlogVisibility,
    private readonly tags: TagsRepository,
  ) {
    this.statements = statementsOf(visibility);
  }

  /** Makes the triggers keep the newest `kept` revisions of each blog (the others go at its next write). */
  async setKept(kept: number): Promise<void> {
    await this.sql.onPrimary(SET_KEPT, [kept]);
  }

  /** A page of blog `blogId`'s newest `kept` revisions, newest first, their number and the blog. */
  async findPage(blogId: number, kept: number, { limit, offset, after }: RevisionPageQuery): Promise<RevisionPage> {
    const { rows } =
      after === undefined
        ? await this.sql.onReplica<Row>(this.statements.pageAtOffset, [blogId, kept, limit + 1, offset])
        : await this.sql.onReplica<Row>(this.statements.pageAfter, [blogId, kept, limit + 1, after.version]);
    if (rows.length === 0) return { blog: null, items: [], total: 0, more: false };
    // A page past the revisions is the LEFT JOIN's one row without one.
    const items = await this.named(rows.filter((row) => row.version !== null));
    return {
      blog: this.visibility.accessOf(rows[0]),
      items: items.slice(0, limit),
      total: Number(rows[0].total),
      more: items.length > limit,
    };
  }

  /** Revision `version` of blog `blogId` if among its newest `kept`, and who may read the blog; from a replica. */
  async findOne(blogId: number, version: number, kept: number): Promise<RevisionOfBlog> {
    const { rows } = await this.sql.onReplica<Row>(this.statements.find, [blogId, kept, version]);
    return this.revisionOf(rows);
  }

  /** {@link findOne} from the primary, with the blog's version and whether its text is the revision's. */
  async findToRestore(blogId: number, version: number, kept: number): Promise<RevisionToRestore> {
    const { rows } = await this.sql.onPrimary<Row>(this.statements.findToRestore, [blogId, kept, version]);
    const found = await this.revisionOf(rows);
    return { ...found, blogVersion: Number(rows[0]?.blog_version ?? 0), current: rows[0]?.current === true };
  }

  private async revisionOf(rows: readonly Row[]): Promise<RevisionOfBlog> {
    if (rows.length === 0) return { blog: null, revision: null };
    const blog = this.visibility.accessOf(rows[0]);
    if (rows[0].version === null) return { blog, revision: null };
    const [revision] = await this.named(rows);
    return { blog, revision: revision as FullRevision };
  }

  /** The revisions of `rows`, their tags named (looked up once for all of them). */
  private async named(rows: readonly Row[]): Promise<Revision[]> {
    const slugs = rows.flatMap((row) => row.tag_slugs as string[]);
    const names = slugs.length > 0 ? await this.tags.names(slugs) : new Map<string, string>();
    return rows.map((row) => ({
      version: row.version as number,
      title: row.title as string,
      ...(row.content === undefined ? {} : { content: row.content as string }),
      author: row.author as string,
      tags: (row.tag_slugs as string[]).flatMap((slug) => names.get(slug) ?? []),
      createdAt: new Date(row.created_at as string | Date),
      changed: row.changed as string[],
    }));
  }
}
