import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import type { CountedTag } from './counted-tag';
import { TagSort } from './tag-list';
import { liveTagCount, scheduledBlogs } from './tag-sql';

/** A page of the tag list as {@link TagsRepository.findPage} reads it; live means published at or before `now`. */
export interface TagListQuery {
  readonly sort: TagSort;
  readonly limit: number;
  readonly offset: number;
  readonly now: Date;
}

/** A page of tags with live blogs, and the number of all such tags, from one snapshot. */
export interface TagPage {
  readonly items: readonly CountedTag[];
  readonly total: number;
}

/**
 * The tags of the blogs scheduled at $3 (few), each with how many of them carry it: a tag's live count is its counter
 * less that. `total`: the tags with live blogs, those with a counter above zero less those whose every counted blog is
 * scheduled (a counter counts scheduled blogs too, so it is never below the scheduled ones).
 */
const SCHEDULED_AND_TOTAL = `"scheduled" AS (
    SELECT s."slug", count(*) AS "n" FROM ${scheduledBlogs('$3')} b CROSS JOIN LATERAL unnest(b."tag_slugs") AS s("slug")
    GROUP BY s."slug"),
  "total" AS (
    SELECT (SELECT count(*) FROM "tag_counts" WHERE "n" > 0)
      - (SELECT count(*) FROM "scheduled" s JOIN "tag_counts" c ON c."tag_slug" = s."slug" WHERE c."n" = s."n") AS "total")`;

/**
 * Per sort, the tags ("slug", "n": the counter) among which the page of live ones lies, in a form the page can stop
 * early on. `-count`: the first $1 + $2 + (tags of scheduled blogs) counters in count order, read from
 * `IDX_tag_counts_n_tag_slug`, and the scheduled blogs' tags; any other tag has as many live blogs as its counter says,
 * and at least $1 + $2 of those counters rank before it, so it is not on the page. `slug`: every counter, in slug order.
 */
const CANDIDATES: Readonly<Record<TagSort, string>> = {
  '-count': `(SELECT c."tag_slug" AS "slug", c."n" FROM "tag_counts" c WHERE c."n" > 0 ORDER BY c."n" DESC, c."tag_slug"
      LIMIT $1::int8 + $2::int8 + (SELECT count(*) FROM "scheduled"))
    UNION
    SELECT c."tag_slug", c."n" FROM "scheduled" s JOIN "tag_counts" c ON c."tag_slug" = s."slug"`,
  slug: `SELECT c."tag_slug" AS "slug", c."n" FROM "tag_counts" c WHERE c."n" > 0`,
};

/** The ORDER BY of each sort, on the columns of the page (`slug` is COLLATE "C", so slugs compare code points). */
const ORDERS: Readonly<Record<TagSort, string>> = {
  '-count': `"count" DESC, "slug"`,
  slug: `"slug"`,
};

/**
 * The page ($1 limit, $2 offset) of tags with live blogs at $3, and their total; an empty page is the LEFT JOIN's one
 * row without a tag. Names by primary key for the page's tags only (every counted slug has a tag: a foreign key). No
 * request adds up every counter (docs/performance.md, "`GET /tags` in count order").
 */
const listStatement = (sort: TagSort): PreparedStatement => ({
  name: `tags.list.${sort}`,
  text: `WITH ${SCHEDULED_AND_TOTAL}
  SELECT n."total", p.* FROM "total" n
  LEFT JOIN (SELECT l."slug", (SELECT t."name" FROM "tags" t WHERE t."slug" = l."slug") AS "name", l."count" FROM (
      SELECT k."slug", k."n" - coalesce(s."n", 0) AS "count" FROM (${CANDIDATES[sort]}) k
      LEFT JOIN "scheduled" s ON s."slug" = k."slug"
      WHERE k."n" > coalesce(s."n", 0) ORDER BY ${ORDERS[sort]} LIMIT $1 OFFSET $2) l) p ON true
  ORDER BY ${ORDERS[sort]}`,
});

const LIST: Readonly<Record<TagSort, PreparedStatement>> = {
  '-count': listStatement('-count'),
  slug: listStatement('slug'),
};

const FIND_BY_SLUG: PreparedStatement = {
  name: 'tags.find-by-slug',
  text: `SELECT t."slug", t."name", ${liveTagCount('t."slug"', '$2')} AS "count" FROM "tags" t WHERE t."slug" = $1`,
};

const FIND_NAMES: PreparedStatement = {
  name: 'tags.find-names',
  text: `SELECT "slug", "name" FROM "tags" WHERE "slug" = ANY($1::text[])`,
};

/** Tag names kept in memory, by slug: enough for every tag of a large blog (about 100 bytes each). */
const TAG_NAME_CACHE_SIZE = 10_000;

interface Row {
  readonly slug: string | null;
  readonly name: string;
  readonly count: string;
  readonly total?: string;
}

/**
 * Data access of tags and their counts; every method is one statement, read from a replica within its lag bound, but
 * {@link names}.
 */
@Injectable()
export class TagsRepository {
  /** A tag's name never changes once stored, so a name read once is kept (docs/architecture.md, "Tags"). */
  private readonly cachedNames = new LRUCache<string, string>({ max: TAG_NAME_CACHE_SIZE });

  constructor(private readonly sql: StatementRunner) {}

  /**
   * The names of the tags `slugs` by slug, a slug without a tag left out: from memory, else read from the primary,
   * which has every tag that a blog on any replica has.
   */
  async names(slugs: Iterable<string>): Promise<ReadonlyMap<string, string>> {
    const names = new Map<string, string>();
    const missing = new Set<string>();
    for (const slug of slugs) {
      if (names.has(slug) || missing.has(slug)) continue;
      const name = this.cachedNames.get(slug);
      if (name === undefined) missing.add(slug);
      else names.set(slug, name);
    }
    if (missing.size > 0) {
      const { rows } = await this.sql.onPrimary<{ slug: string; name: string }>(FIND_NAMES, [[...missing]]);
      for (const { slug, name } of rows) {
        this.cachedNames.set(slug, name);
        names.set(slug, name);
      }
    }
    return names;
  }

  /** Tags with live blogs in the order `sort`, `offset` to `offset + limit - 1`, with their number. */
  async findPage({ sort, limit, offset, now }: TagListQuery): Promise<TagPage> {
    const { rows } = await this.sql.onReplica<Row>(LIST[sort], [limit, offset, now]);
    return {
      items: rows.filter((row) => row.slug !== null).map((row) => this.toCountedTag(row)),
      total: Number(rows[0]?.total ?? 0),
    };
  }

  /** The tag `slug` with its live blogs at `now` (0 when none), or null when no tag has this slug. */
  async findBySlug(slug: string, now: Date): Promise<CountedTag | null> {
    const { rows } = await this.sql.onReplica<Row>(FIND_BY_SLUG, [slug, now]);
    return rows.length > 0 ? this.toCountedTag(rows[0]) : null;
  }

  private toCountedTag(row: Row): CountedTag {
    return { slug: row.slug!, name: row.name, count: Number(row.count) };
  }
}
