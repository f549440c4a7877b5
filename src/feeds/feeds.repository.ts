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

/** What names a sitemap file before it is read ({@link FeedsRepository.findFileSummary}). */
export interface SitemapFileSummary {
  /** The newest `updatedAt` of its live blogs; undefined when it has none. */
  readonly lastModified: Date | undefined;
  /** Moves with every change to its blogs: its blocks' summary rows as written, and its scheduled blogs. */
  readonly version: string;
}

/** Rows a sitemap file reads at a time, and the URLs it writes at a time (docs/performance.md, "Feeds and sitemaps"). */
export const SITEMAP_BATCH = 2000;

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
     * Up to {@link SITEMAP_BATCH} live blogs at $1 with ids from $2 to $3, by id: a range of the primary key.
     * `updated_at` comes as the API's text, which PostgreSQL writes faster than the driver parses and JavaScript
     * formats instants.
     */
    file: {
      name: 'feeds.sitemap-file',
      text: `SELECT b."id", b."slug",
          to_char(b."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt" FROM "blogs" b
        WHERE b."id" BETWEEN $2::int4 AND $3::int4 AND ${live} ORDER BY b."id" LIMIT ${SITEMAP_BATCH}`,
    },
    /**
     * The files of $2 ids each that have live blogs at $1, and the newest `updated_at` of each: whole blocks from
     * `sitemap_blocks`; a block that holds a blog scheduled at $1, straddles two files or is stale, from its blogs (at
     * most 1000 rows by primary key each).
     */
    index: {
      name: 'feeds.sitemap-index',
      text: `WITH ${filesOf(live, '')}
        SELECT "file" + 1 AS "file", max("updated_at") AS "updated_at" FROM "pieces" GROUP BY "file" ORDER BY "file"
        LIMIT ${MAX_SITEMAP_FILES}`,
    },
    /**
     * File $5 (from 1) of $2 ids each, its blocks $3 to $4 and its ids $6 to $7, at $1: the newest `updated_at` of its
     * live blogs as the index reads it (null when it has none), the version of its blocks' summary rows (each
     * row's `xmin`, which every write of a blog that is not a draft renews) and how many of its blogs are scheduled.
     */
    fileSummary: {
      name: 'feeds.sitemap-file-summary',
      text: `WITH ${filesOf(live, 'WHERE "block" BETWEEN $3::int4 AND $4::int4')}
        SELECT (SELECT max(p."updated_at") FROM "pieces" p WHERE p."file" + 1 = $5::int4) AS "updated_at",
          (SELECT string_agg(v."block" || '.' || v."shard" || '.' || v."xmin"::text, ',' ORDER BY v."block", v."shard")
            FROM "sitemap_blocks" v WHERE v."block" BETWEEN $3::int4 AND $4::int4) AS "version",
          (SELECT count(*) FROM "scheduled_blogs"($1) s WHERE s."id" BETWEEN $6::int4 AND $7::int4) AS "scheduled"`,
    },
    /** The blocks of `sitemap_blocks` with a removal not yet folded. */
    staleBlocks: {
      name: 'feeds.sitemap-stale-blocks',
      text: `SELECT DISTINCT "block" FROM "sitemap_blocks" WHERE "stale" > 0`,
    },
    /** Sets block $1's newest `updated_at` from its blogs and clears its `stale` (migration `FoldSitemapBlocks`). */
    fold: { name: 'feeds.sitemap-fold', text: `SELECT "sitemap_block_fold"($1::int4)` },
  };
}

/**
 * The CTEs that end in `pieces` (`file` from 0, `updated_at`): per file of $2 ids, the newest `updated_at` of the live
 * blogs at $1 of each block `where` selects from `sitemap_blocks`, read whole from it or, for a block that holds a blog
 * scheduled at $1, straddles two files or is stale (a removal not yet folded), from its blogs.
 */
function filesOf(live: string, where: string): string {
  const block = SITEMAP_BLOCK_IDS;
  return `"scheduled" AS (SELECT DISTINCT (s."id" - 1) / ${block} AS "block" FROM "scheduled_blogs"($1) s),
        "summed" AS (SELECT "block", max("updated_at") AS "updated_at", sum("stale") > 0 AS "stale" FROM "sitemap_blocks"
          ${where} GROUP BY "block" HAVING sum("n") > 0),
        "blocks" AS (SELECT k."block", k."updated_at",
            k."block"::int8 * ${block} / $2::int4 AS "first", (k."block"::int8 * ${block} + ${block - 1}) / $2::int4 AS "last",
            k."stale" OR k."block" IN (SELECT "block" FROM "scheduled") AS "counted"
          FROM "summed" k),
        "pieces" AS (
          SELECT "first" AS "file", "updated_at" FROM "blocks" WHERE "first" = "last" AND NOT "counted"
          UNION ALL
          SELECT e."file", e."updated_at" FROM "blocks" k CROSS JOIN LATERAL (
            SELECT (b."id" - 1) / $2::int4 AS "file", max(b."updated_at") AS "updated_at" FROM "blogs" b
            WHERE b."id" BETWEEN k."block"::int8 * ${block} + 1 AND (k."block" + 1)::int8 * ${block} AND ${live} GROUP BY 1) e
          WHERE k."first" <> k."last" OR k."counted")`;
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

  /**
   * The live blogs at `now` whose ids are `first` to `last`, by id, {@link SITEMAP_BATCH} at a time: each batch one read
   * of the primary key after the last id of the one before, made when the consumer asks for it.
   */
  async *findFile(first: number, last: number, now: Date, client?: string): AsyncGenerator<SitemapBlog[]> {
    for (let from = first; from <= last;) {
      const { rows } = await this.sql.onReplica<SitemapBlog>(this.statements.file, [now, from, last], 'slow', client);
      if (rows.length > 0) yield rows;
      if (rows.length < SITEMAP_BATCH) return;
      from = Number(rows[rows.length - 1].id) + 1;
    }
  }

  /**
   * What names sitemap file `file` (ids `first` to `last`, `size` each) at `now` before it is read: the newest
   * `updatedAt` of its live blogs, undefined when it has none, and a version that every change to its blogs moves.
   */
  async findFileSummary(
    file: number,
    first: number,
    last: number,
    size: number,
    now: Date,
  ): Promise<SitemapFileSummary> {
    const blocks = [(first - 1) / SITEMAP_BLOCK_IDS, (last - 1) / SITEMAP_BLOCK_IDS].map(Math.floor);
    const values = [now, size, blocks[0], blocks[1], file, first, last];
    const { rows } = await this.sql.onReplica<Row>(this.statements.fileSummary, values);
    const { updated_at: updatedAt, version, scheduled } = rows[0] as Record<string, string | Date | null>;
    return {
      lastModified: updatedAt === null ? undefined : new Date(updatedAt),
      version: `${(version as string | null) ?? ''};${String(scheduled)}`,
    };
  }

  /** Folds each stale block of `sitemap_blocks`, one statement (and transaction) each; answers how many. */
  async foldStaleBlocks(): Promise<number> {
    const { rows } = await this.sql.onPrimary<{ block: number }>(this.statements.staleBlocks, []);
    for (const { block } of rows) await this.sql.onPrimary(this.statements.fold, [block]);
    return rows.length;
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
