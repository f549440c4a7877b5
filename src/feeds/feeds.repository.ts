import { Injectable } from '@nestjs/common';
import { BlogVisibility } from '../blogs/blog-visibility';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import type { FeedPosition } from './feed-cursor';
import { SITEMAP_BLOCK_IDS } from './sitemap-block.entity';

/** A live blog as a feed shows it; `tagSlugs` in the blog's order. */
export interface FeedBlog {
  readonly id: number;
  readonly title: string;
  readonly content: string;
  readonly author: string;
  readonly slug: string;
  readonly publishedAt: Date;
  readonly updatedAt: Date;
  readonly tagSlugs: readonly string[];
}

/** A live blog as a sitemap lists it; `updatedAt` as the API writes instants (`2026-11-29T07:30:00.123Z`). */
export interface SitemapBlog {
  readonly id: number;
  readonly slug: string;
  readonly updatedAt: string;
}

/** One sitemap file that has blogs: its number (from 1) and the newest `updatedAt` of its blogs. */
export interface SitemapFile {
  readonly file: number;
  readonly lastModified: Date;
}

/** A feed document's read: its filters, where it starts, how many rows, the instant that decides what is live. */
export interface FeedPageQuery {
  readonly tag?: string;
  readonly author?: string;
  readonly after?: FeedPosition;
  /** Rows read: the document's entries and one more, to tell whether another document follows. */
  readonly rows: number;
  readonly now: Date;
}

/** Most files the sitemap index lists: the protocol's limit for one index. */
export const MAX_SITEMAP_FILES = 50_000;

type Row = Record<string, unknown>;

/**
 * The statements of feeds and sitemaps, over the live blogs as `visibility` tells them. Feed pages walk
 * `IDX_blogs_published_at_id` backwards from the instant; a sitemap file reads one range of the primary key; the index
 * reads `sitemap_blocks`, and the blogs only of the blocks it cannot take whole (docs/architecture.md, "Feeds and
 * sitemaps").
 */
function statementsOf(visibility: BlogVisibility) {
  const live = visibility.liveCondition('b', '$1');
  const block = SITEMAP_BLOCK_IDS;
  return {
    /**
     * Live blogs at $1, newest `published_at` first (ties by id), with the tag and the author when `query` has them,
     * after its position when it has one, and the values of the parameters; `rows` is written into the text, as the
     * blog list's first pages do (docs/performance.md, "Generic plans").
     */
    page: ({ tag, author, after, rows, now }: FeedPageQuery): { statement: PreparedStatement; values: unknown[] } => {
      const values: unknown[] = [now];
      const bind = (value: unknown): string => `$${values.push(value)}`;
      const conditions = [live];
      if (tag !== undefined) conditions.push(`b."tag_slugs" @> ARRAY[${bind(tag)}::text]`);
      if (author !== undefined) conditions.push(`b."author" = ${bind(author)}::text`);
      if (after !== undefined)
        conditions.push(`(b."published_at", b."id") < (${bind(after.value)}::timestamptz, ${bind(after.id)}::int4)`);
      const name = `feeds.page.${tag === undefined ? '' : 'tag.'}${author === undefined ? '' : 'author.'}${after === undefined ? '' : 'after.'}${Math.trunc(rows)}`;
      const text = `SELECT b."id", b."title", b."content", b."author", b."slug", b."published_at", b."updated_at",
        b."tag_slugs" FROM "blogs" b WHERE ${conditions.join(' AND ')}
        ORDER BY b."published_at" DESC, b."id" DESC LIMIT ${Math.trunc(rows)}`;
      return { statement: { name, text }, values };
    },
    /**
     * The live blogs at $1 with ids from $2 to $3, by id: one range of the primary key. `updated_at` comes as the API's
     * text, which PostgreSQL writes faster than the driver parses and JavaScript formats 50,000 instants.
     */
    file: {
      name: 'feeds.sitemap-file',
      text: `SELECT b."id", b."slug",
          to_char(b."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt" FROM "blogs" b
        WHERE b."id" BETWEEN $2::int4 AND $3::int4 AND ${live} ORDER BY b."id"`,
    },
    /**
     * The files of $2 ids each that have live blogs at $1, and the newest `updated_at` of each: whole blocks from
     * `sitemap_blocks`; a block that holds a blog scheduled at $1 or straddles two files, from its blogs (at most
     * 1000 rows by primary key each).
     */
    index: {
      name: 'feeds.sitemap-index',
      text: `WITH "scheduled" AS (SELECT DISTINCT (s."id" - 1) / ${block} AS "block" FROM "scheduled_blogs"($1) s),
        "summed" AS (SELECT "block", max("updated_at") AS "updated_at" FROM "sitemap_blocks" GROUP BY "block"
          HAVING sum("n") > 0),
        "blocks" AS (SELECT k."block", k."updated_at",
            k."block"::int8 * ${block} / $2::int4 AS "first", (k."block"::int8 * ${block} + ${block - 1}) / $2::int4 AS "last",
            k."block" IN (SELECT "block" FROM "scheduled") AS "counted"
          FROM "summed" k),
        "pieces" AS (
          SELECT "first" AS "file", "updated_at" FROM "blocks" WHERE "first" = "last" AND NOT "counted"
          UNION ALL
          SELECT e."file", e."updated_at" FROM "blocks" k CROSS JOIN LATERAL (
            SELECT (b."id" - 1) / $2::int4 AS "file", max(b."updated_at") AS "updated_at" FROM "blogs" b
            WHERE b."id" BETWEEN k."block"::int8 * ${block} + 1 AND (k."block" + 1)::int8 * ${block} AND ${live} GROUP BY 1) e
          WHERE k."first" <> k."last" OR k."counted")
        SELECT "file" + 1 AS "file", max("updated_at") AS "updated_at" FROM "pieces" GROUP BY "file" ORDER BY "file"
        LIMIT ${MAX_SITEMAP_FILES}`,
    },
  };
}

/** Reads of feeds and sitemaps: live blogs only, from a replica within its lag bound. */
@Injectable()
export class FeedsRepository {
  private readonly statements: ReturnType<typeof statementsOf>;

  constructor(
    private readonly sql: StatementRunner,
    visibility: BlogVisibility,
  ) {
    this.statements = statementsOf(visibility);
  }

  /**
   * Up to `rows` live blogs of the feed `query` selects, newest first. `client`: whose share of the slow lane a
   * filtered feed waits in (a rare tag or author may walk many blogs).
   */
  async findPage(query: FeedPageQuery, client?: string): Promise<FeedBlog[]> {
    const { statement, values } = this.statements.page(query);
    const lane = query.tag === undefined && query.author === undefined ? 'fast' : 'slow';
    const result = await this.sql.onReplica<Row>(statement, values, lane, client);
    return result.rows.map((row) => ({
      id: Number(row.id),
      title: row.title as string,
      content: row.content as string,
      author: row.author as string,
      slug: row.slug as string,
      publishedAt: new Date(row.published_at as string | Date),
      updatedAt: new Date(row.updated_at as string | Date),
      tagSlugs: row.tag_slugs as string[],
    }));
  }

  /** The live blogs at `now` whose ids are `first` to `last`, by id. */
  async findFile(first: number, last: number, now: Date, client?: string): Promise<SitemapBlog[]> {
    const { rows } = await this.sql.onReplica<SitemapBlog>(this.statements.file, [now, first, last], 'slow', client);
    return rows;
  }

  /** The sitemap files of `size` ids each that hold live blogs at `now`, by number, at most {@link MAX_SITEMAP_FILES}. */
  async findFiles(size: number, now: Date): Promise<SitemapFile[]> {
    const { rows } = await this.sql.onReplica<Row>(this.statements.index, [now, size]);
    return rows.map((row) => ({
      file: Number(row.file),
      lastModified: new Date(row.updated_at as string | Date),
    }));
  }
}
