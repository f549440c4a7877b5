import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import type { CountedTag } from './counted-tag';
import { TagSort } from './tag-list';
import { scheduledBlogs } from '../blogs/scheduled-blogs';
import { liveTagCount } from './tag-sql';

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
 * Each tag's live count ($3: now): its counter, less its scheduled blogs (few: `scheduled_blogs`);
 * only tags with live blogs (docs/architecture.md, "Tags"). Summed as `int4` into an `int8` (a shard counts fewer
 * blogs than there are ids): the `int8` sum is a `numeric` one, about a fifth slower over every counter row.
 */
const LIVE_COUNTS = `"live" AS (
  SELECT d."slug", sum(d."n") AS "count" FROM (
    SELECT c."tag_slug" AS "slug", c."n"::int4 FROM "tag_counts" c
    UNION ALL
    SELECT s."slug", -1 FROM ${scheduledBlogs('$3')} b CROSS JOIN LATERAL unnest(b."tag_slugs") AS s("slug")
  ) d GROUP BY d."slug" HAVING sum(d."n") > 0)`;

/** The ORDER BY of each sort, on the columns of the page (`slug` is COLLATE "C", so slugs compare code points). */
const ORDERS: Readonly<Record<TagSort, string>> = {
  '-count': `"count" DESC, "slug"`,
  slug: `"slug"`,
};

/**
 * The page ($1 limit, $2 offset) and its total; an empty page is the LEFT JOIN's one row without a tag. Names are
 * joined to the page's tags only (docs/performance.md, "`GET /tags`: names for the page only").
 */
const listStatement = (sort: TagSort): PreparedStatement => ({
  name: `tags.list.${sort}`,
  text: `WITH ${LIVE_COUNTS}
  SELECT n."total", p.* FROM (SELECT count(*)::int8 AS "total" FROM "live") n
  LEFT JOIN (SELECT l."slug", t."name", l."count" FROM (
      SELECT "slug", "count" FROM "live" ORDER BY ${ORDERS[sort]} LIMIT $1 OFFSET $2) l
    JOIN "tags" t ON t."slug" = l."slug") p ON true
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
