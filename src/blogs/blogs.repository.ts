import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { OwnedWriteCondition, writableSql, writableValues } from '../common/http/conditional-write';
import { SLUG_MAX_LENGTH } from '../common/text/slug';
import { isStatementTimeout, isUniqueViolation } from '../database/database-errors';
import { Row, rowMapper } from '../database/entity-rows';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import { BlogFilters, BlogListPosition, BlogSort, SEARCH_TOTAL_CAP, SearchCount } from './blog-list';
import { blogColumns, blogListStatement, liveTotalSql, SEARCH_POSITION } from './blog-list-statement';
import { searchCountKey, SearchCounts } from './search-counts';
import type { TotalRelation } from '../common/paging/list-envelope';
import { pageOfRows, pageWithTotalSql, perKey } from '../common/paging/page';
import { givenTagNames, tagNames, tagUpsert } from '../tags/tag-sql';
import { TagsRepository } from '../tags/tags.repository';
import type { NormalizedTags } from '../tags/tags.service';
import { BlogListStatus, blogStateSql, liveSql } from './blog-status';
import { Blog } from './blog.entity';
import type { Publication } from './publication';

/** One page of blogs, newest first, and the exact number of all blogs in the same snapshot. */
interface BlogPage {
  readonly items: readonly Blog[];
  readonly total: number;
}

/** A blog to store: its text, owner, `published_at` (null: a draft) and its slug, given or to be made free. */
export interface NewBlog extends Pick<Blog, 'title' | 'content' | 'author' | 'ownerSub' | 'publishedAt'> {
  /** The slug asked for (`explicit`), or the base of the lowest free one (`base`, `base-2`, …). */
  readonly slug: { readonly value: string; readonly explicit: boolean };
  readonly tags: NormalizedTags;
}

/** What an update changes: the text fields it gives (all three on PUT), `published_at`, and the slug if given. */
export interface BlogChanges extends Partial<Pick<Blog, 'title' | 'content' | 'author' | 'slug'>> {
  readonly publication: Publication;
  /** The blog's new tags; undefined keeps them. */
  readonly tags?: NormalizedTags;
}

/** An explicit slug is another blog's current one (the unique index `IDX_blogs_slug` refused it). */
export class SlugTakenError extends Error {
  override readonly name = 'SlugTakenError';
}

/** The conditions of a write: the owner it requires (undefined: any), the entity-tag states it may change, the clock. */
export interface WriteCondition extends OwnedWriteCondition {
  /** The instant that decides whether the blog is scheduled (its tag's variant) and what `now` means. */
  readonly now: Date;
}

/** A page of the list as {@link BlogsRepository.findList} reads it. */
export interface BlogListQuery {
  readonly filters: BlogFilters;
  readonly sort: BlogSort;
  readonly limit: number;
  /** Matching blogs skipped before the page (after `after`, when given). */
  readonly offset: number;
  /** Keyset paging: the page starts after this blog of the order. */
  readonly after?: BlogListPosition;
  /** Whether to read `content`; without it the blogs come back without content. */
  readonly withContent: boolean;
  /** Which blogs by status at `now`. */
  readonly status: BlogListStatus;
  /** Only the blogs of this owner (`owner_sub`), when given. */
  readonly owner?: string;
  readonly now: Date;
}

/**
 * A page, the number of all blogs matching the filters (exact, or for a search past {@link SEARCH_TOTAL_CAP} that cap
 * with `totalRelation` `gte`), and whether more follow the page.
 */
interface BlogListPage extends BlogPage {
  readonly totalRelation: TotalRelation;
  readonly more: boolean;
}

// Named prepared statements where the Repository API measured slower on a hot path (docs/performance.md, "Data access").

const BLOG_COLUMNS = blogColumns(true);

/** SQL: the names of a blog row's tags (`tag_names`), looked up only when it has tags. */
const BLOG_TAG_NAMES = `CASE WHEN cardinality("tag_slugs") = 0 THEN '{}'::text[] ELSE ${tagNames('"tag_slugs"')} END`;

/** The rows of {@link PAGE_WITH_TOTAL}'s page, newest first. */
const PAGE_ROWS = `SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE "id" IN (SELECT "id" FROM keys) ORDER BY "created_at" DESC, "id" DESC`;

/**
 * The page of live blogs at $3 and their total from one snapshot: keys from the nearer end of the index
 * (docs/architecture.md, "The page query").
 */
const PAGE_WITH_TOTAL: PreparedStatement = {
  name: 'blogs.page',
  text: `WITH c AS (SELECT ${liveTotalSql('$3')} AS total),
  keys AS (
    (SELECT "id" FROM "blogs" WHERE ${liveSql('$3')} ORDER BY "created_at" DESC, "id" DESC
      LIMIT CASE WHEN $2::int8 * 2 < (SELECT total FROM c) THEN $1 ELSE 0 END OFFSET $2)
    UNION ALL
    (SELECT "id" FROM "blogs" WHERE ${liveSql('$3')} ORDER BY "created_at", "id"
      LIMIT CASE WHEN $2::int8 * 2 >= (SELECT total FROM c)
        THEN greatest(least($1, (SELECT total FROM c) - $2), 0) ELSE 0 END
      OFFSET greatest((SELECT total FROM c) - $2 - $1, 0)))
  ${pageWithTotalSql('c.total', 'c', PAGE_ROWS)}`,
};

/**
 * The first `limit` live blogs at $1 and their total from one snapshot. The limit is written into the text, one
 * statement per limit (at most `PAGING.maxLimit`): with `LIMIT $n` PostgreSQL prices a generic plan for 10 % of the
 * table and plans every execution anew (docs/performance.md, "Generic plans").
 */
const firstPage = (limit: number): PreparedStatement => ({
  name: `blogs.first-page.${limit}`,
  text: `SELECT c."total", p.* FROM (SELECT ${liveTotalSql('$1')} AS "total") c LEFT JOIN (
    SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE ${liveSql('$1')} ORDER BY "created_at" DESC, "id" DESC
    LIMIT ${Math.trunc(limit)}) p ON true ORDER BY p."created_at" DESC, p."id" DESC`,
});

/** The statement {@link firstPage} of `limit`, made once. */
const firstPageStatement = perKey(firstPage);

/** The lexemes of `websearch_to_tsquery('simple', $1)` in its text's order, once per occurrence (quotes undoubled). */
const SEARCH_TERMS: PreparedStatement = {
  name: 'blogs.search-terms',
  text: `SELECT coalesce(array_agg(replace(t.m[1], '''''', '''') ORDER BY t.n), '{}') AS "terms"
    FROM regexp_matches(websearch_to_tsquery('simple', $1)::text, '''((?:[^'']|'''')*)''', 'g') WITH ORDINALITY t(m, n)`,
};

/** Search texts whose terms are kept in memory (a text of at most 200 characters each). */
const SEARCH_TERMS_CACHE_SIZE = 1_000;

const FIND_BY_ID: PreparedStatement = {
  name: 'blogs.find-by-id',
  text: `SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE "id" = $1`,
};

/** The blog whose current slug is $1, else the one that held it before. */
const FIND_BY_SLUG: PreparedStatement = {
  name: 'blogs.find-by-slug',
  text: `SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE "id" = COALESCE(
    (SELECT "id" FROM "blogs" WHERE "slug" = $1), (SELECT "blog_id" FROM "blog_slugs" WHERE "slug" = $1))`,
};

/** Candidate `n` (≥ 2) of the base $6: the base cut to leave room for `-n`, as `suffixedSlug` makes it. */
const suffixed = (n: string): string =>
  `rtrim(left($6::text, ${SLUG_MAX_LENGTH} - 1 - length(${n}::text)), '-') || '-' || ${n}`;

/**
 * Whether the slug `slug` is no blog's, now or before: two anti-joins, which the planner runs as index probes per
 * candidate (an `OR` of `EXISTS` became hashed subplans that read both tables whole).
 */
const free = (slug: string): string =>
  `NOT EXISTS (SELECT FROM "blogs" WHERE "slug" = ${slug}) AND NOT EXISTS (SELECT FROM "blog_slugs" WHERE "slug" = ${slug})`;

/**
 * SQL: $6 when `explicit` (a `bool` expression) or it is free, else the lowest free of $6-2, $6-3, …: `"slug"`, from
 * `blog_slug_suffix` (migration `ReplaceBlogSlugGaps`), else, for a base too long to keep whole, by probing the
 * candidates in ascending order.
 */
const slugToStore = (explicit: string): string =>
  `SELECT CASE WHEN ${explicit} OR (${free('$6::text')}) THEN $6::text ELSE COALESCE("blog_slug_suffix"($6::text), (
      SELECT c."slug" FROM (SELECT ${suffixed('s."n"')} AS "slug" FROM (SELECT generate_series(2, 2147483647) AS "n") s) c
      WHERE ${free('c."slug"')} LIMIT 1)) END AS "slug"`;

/**
 * Stores a blog with the slug $6 when $7 (explicit; an earlier slug of another blog stops leading there), else with
 * the lowest free of $6, $6-2, … among every slug held or once held; a create that needs a suffix reserves it with an
 * advisory lock that no other create waits for. A concurrent create may take the same slug first: the unique index
 * refuses the second, which is tried again (docs/architecture.md, "Publishing and slugs").
 */
const INSERT: PreparedStatement = {
  name: 'blogs.insert',
  text: `WITH "free" AS (${slugToStore('$7::bool')}),
  "released" AS (DELETE FROM "blog_slugs" WHERE $7::bool AND "slug" = $6::text),
  "tagged" AS (${tagUpsert('$8', '$9')}),
  "stored" AS (
    INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "published_at", "slug", "tag_slugs")
    SELECT $1, $2, $3, $4, $5, "slug", $8::text[] FROM "free" RETURNING ${BLOG_COLUMNS})
  SELECT "stored".*, ${givenTagNames('$8', '$9')} AS "tag_names" FROM "stored"`,
};

/**
 * {@link INSERT} of the common create, $1-$6 only: no tags and a slug made from the base $6, so no earlier slug to
 * release and no tag to store (docs/performance.md, "Creates without tags").
 */
const INSERT_UNTAGGED: PreparedStatement = {
  name: 'blogs.insert-untagged',
  text: `WITH "free" AS (${slugToStore('false')})
  INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "published_at", "slug")
  SELECT $1, $2, $3, $4, $5, "slug" FROM "free" RETURNING ${BLOG_COLUMNS}, '{}'::text[] AS "tag_names"`,
};

/** The blog $1 when owned by $2 (null: any owner) in an entity-tag state in $3 and not in $4 (null: any) at $5. */
const WRITABLE = writableSql(blogStateSql('$5'));

/**
 * Sets the fields given in $6-$8 (null: kept), `published_at` as $9 says (`keep`, `draft`, `at` $10, or
 * `now-unless-live`) when the blog meets the requirement $11 (null, `scheduled`, `not-draft`), the slug $12
 * (null: kept; the trigger `blogs_slug_changed` keeps the one left) and the tags $13 named $14 (null: kept), stored
 * only when the blog changed: one statement for PUT and PATCH.
 */
const UPDATE: PreparedStatement = {
  name: 'blogs.update',
  text: `WITH "stored" AS (UPDATE "blogs" SET "title" = COALESCE($6, "title"), "content" = COALESCE($7, "content"),
      "author" = COALESCE($8, "author"),
      "published_at" = CASE $9::text WHEN 'draft' THEN NULL WHEN 'at' THEN $10::timestamptz
        WHEN 'now-unless-live' THEN CASE WHEN "published_at" IS NULL OR "published_at" > $5 THEN $5 ELSE "published_at" END
        ELSE "published_at" END,
      "slug" = COALESCE($12::text, "slug"), "tag_slugs" = COALESCE($13::text[], "tag_slugs"),
      "updated_at" = GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond'), "version" = "version" + 1
    WHERE ${WRITABLE} AND ($11::text IS NULL OR ($11 = 'scheduled' AND "published_at" > $5)
      OR ($11 = 'not-draft' AND "published_at" IS NOT NULL))
    RETURNING ${BLOG_COLUMNS}),
  "tagged" AS (${tagUpsert('$13', '$14', 'EXISTS (SELECT FROM "stored")')})
  SELECT "stored".*, CASE WHEN $13::text[] IS NULL THEN ${BLOG_TAG_NAMES} ELSE ${givenTagNames('$13', '$14')} END
    AS "tag_names" FROM "stored"`,
};

const DELETE: PreparedStatement = { name: 'blogs.delete', text: `DELETE FROM "blogs" WHERE ${WRITABLE}` };

const blogOf = rowMapper(Blog);

/** The unique index of current slugs. */
const SLUG_INDEXES = ['IDX_blogs_slug'];

/** Where a read goes: a replica within its lag bound (else the primary), or the primary, which has every write. */
type ReadSource = 'replica' | 'primary';

/**
 * Data access of `Blog`; every method is one statement. Reads go to the
 * replicas ({@link ReadReplicas}) unless told otherwise, writes to the primary.
 */
@Injectable()
export class BlogsRepository {
  /** A search text's terms never change (the built-in `simple` configuration), so those read once are kept. */
  private readonly cachedTerms = new LRUCache<string, readonly string[]>({ max: SEARCH_TERMS_CACHE_SIZE });
  /** The counts of searches past the cap, which later searches of their key answer `gte` from while they hold. */
  private readonly searchCounts = new SearchCounts();

  constructor(
    private readonly sql: StatementRunner,
    private readonly tags: TagsRepository,
  ) {}

  /** The blog with this id, or null, read from `source`. */
  async findById(id: number, source: ReadSource = 'replica'): Promise<Blog | null> {
    const { rows } =
      source === 'primary'
        ? await this.sql.onPrimary<Row>(FIND_BY_ID, [id])
        : await this.sql.onReplica<Row>(FIND_BY_ID, [id]);
    return rows.length > 0 ? (await this.withTagNames([this.toEntity(rows[0])]))[0] : null;
  }

  /** The blog whose slug is or was `slug` (null: none), read from a replica. */
  async findBySlug(slug: string): Promise<Blog | null> {
    const { rows } = await this.sql.onReplica<Row>(FIND_BY_SLUG, [slug]);
    return rows.length > 0 ? (await this.withTagNames([this.toEntity(rows[0])]))[0] : null;
  }

  /**
   * Live blogs at `now` from `offset` to `offset + limit - 1`, newest first (`createdAt`, then `id`, descending), and
   * their total.
   */
  async findPage(limit: number, offset: number, now: Date): Promise<BlogPage> {
    const { rows } =
      offset === 0
        ? await this.sql.onReplica<Row>(firstPageStatement(limit), [now])
        : await this.sql.onReplica<Row>(PAGE_WITH_TOTAL, [limit, offset, now]);
    const total = Number(rows[0]?.total ?? 0);
    // An empty page is the LEFT JOIN's one row without a blog.
    const items = await this.withTagNames(rows.filter((row) => row.id !== null).map((row) => this.toEntity(row)));
    return { items, total };
  }

  /**
   * A page of the blogs matching `filters` in the order `sort` (ties by `id`), after `offset` blogs
   * or after `after`, with the number of all matching blogs, both from one statement (one snapshot). The total of an
   * unfiltered list comes from the counter; a search counts up to {@link SEARCH_TOTAL_CAP}, or not at all while a
   * count of its key past the cap still holds, one count of a key at a time ({@link SearchCounts}). `client`: whose share
   * of the slow lane it waits in.
   */
  async findList(query: BlogListQuery, client?: string): Promise<BlogListPage> {
    const key = searchCountKey(query);
    if (key === undefined) return this.countedList(query, 'count', client);
    for (;;) {
      const turn = await this.searchCounts.turn(key);
      try {
        if (turn.reading !== 'walk') return await this.countedList(query, turn.reading, client, key);
        const rows = await this.walk(query, client);
        if (this.searchCounts.holds(key, Number(rows[0].position))) {
          const { items, more } = pageOfRows(rows, query.limit, (row) => this.toEntity(row));
          return { items: await this.withTagNames(items), total: SEARCH_TOTAL_CAP, totalRelation: 'gte', more };
        }
      } finally {
        turn.done();
      }
    }
  }

  /**
   * The page walk of a search past the cap ({@link findList}): one statement in the slow lane under the pool's
   * `statement_timeout`; one that runs out of it walks again in the long lane, under the lane's.
   */
  private async walk(query: BlogListQuery, client?: string): Promise<Row[]> {
    const { statement, values, lane } = blogListStatement(query, 'walk');
    try {
      return (await this.sql.onReplica<Row>(statement, values, lane, client)).rows;
    } catch (error) {
      if (!isStatementTimeout(error)) throw error;
      return (await this.sql.onReplica<Row>(statement, values, 'long', client)).rows;
    }
  }

  /** A page of {@link findList} that counts its matches (`deep`: to `SEARCH_COUNT_LIMIT`), kept by `key`. */
  private async countedList(
    query: BlogListQuery,
    reading: 'count' | 'deep',
    client?: string,
    key?: string,
  ): Promise<BlogListPage> {
    const { statement, values, lane } = blogListStatement(query, reading);
    let rows: Row[];
    if (key === undefined || reading === 'count') {
      ({ rows } = await this.sql.onReplica<Row>(statement, values, lane, client));
      if (key !== undefined) this.searchCounts.keepTotal(key, Number(rows[0].total));
    } else {
      // The position is read before the count's snapshot: a write it misses is in flight, within the margin.
      const read = await this.sql.onReplicaAfter<Row, Row>(
        { statement: SEARCH_POSITION, values: [] },
        statement,
        values,
        lane,
        client,
      );
      rows = read.then.rows;
      const { position, margin } = read.first.rows[0];
      const count: SearchCount = { counted: Number(rows[0].total), position: Number(position), margin: Number(margin) };
      this.searchCounts.keep(key, count);
    }
    const { items, total, more } = pageOfRows(rows, query.limit, (row) => this.toEntity(row));
    const capped = query.filters.q !== undefined && total > SEARCH_TOTAL_CAP;
    return {
      items: await this.withTagNames(items),
      total: capped ? SEARCH_TOTAL_CAP : total,
      totalRelation: capped ? 'gte' : 'eq',
      more,
    };
  }

  /**
   * The terms (lexemes) `websearch_to_tsquery('simple', q)` searches for, in order, repeats included; none: no word.
   * From memory when `q` was read before.
   */
  async searchTerms(q: string): Promise<readonly string[]> {
    const cached = this.cachedTerms.get(q);
    if (cached !== undefined) return cached;
    const { rows } = await this.sql.onReplica<{ terms: string[] }>(SEARCH_TERMS, [q]);
    this.cachedTerms.set(q, rows[0].terms);
    return rows[0].terms;
  }

  /**
   * Stores a new blog; the database assigns `id`, both (equal) timestamps and `version` 1. A slug made from a base
   * is tried again when a concurrent create took it first.
   * @throws SlugTakenError when an explicit slug is another blog's current one.
   */
  async insert(blog: NewBlog): Promise<Blog> {
    const { title, content, author, ownerSub, publishedAt, slug, tags } = blog;
    const untagged = !slug.explicit && tags.slugs.length === 0;
    const statement = untagged ? INSERT_UNTAGGED : INSERT;
    const values: unknown[] = [title, content, author, ownerSub, publishedAt, slug.value];
    if (!untagged) values.push(slug.explicit, tags.slugs, tags.names);
    for (;;) {
      try {
        const { rows } = await this.sql.onPrimary<Row>(statement, values);
        return this.toEntity(rows[0]);
      } catch (error) {
        if (!isUniqueViolation(error, SLUG_INDEXES)) throw error;
        // Each refusal means another create took the candidate, so the next try sees one more slug taken.
        if (slug.explicit) throw new SlugTakenError(`slug ${slug.value} is taken`, { cause: error });
      }
    }
  }

  /**
   * Applies `changes`, advances `updatedAt` strictly and increments `version`, when the blog meets `condition` and
   * the requirement of `changes.publication`.
   * @returns the row as stored, or null when no row changed.
   * @throws SlugTakenError when `changes.slug` is another blog's current slug.
   */
  async update(id: number, changes: BlogChanges, condition: WriteCondition): Promise<Blog | null> {
    const { title = null, content = null, author = null, slug = null, publication, tags } = changes;
    const { change, requirement = null } = publication;
    const instant = change.kind === 'at' ? change.instant : null;
    const values = [
      ...[...this.writable(id, condition), title, content, author, change.kind, instant, requirement, slug],
      ...[tags?.slugs ?? null, tags?.names ?? null],
    ];
    try {
      const { rows } = await this.sql.onPrimary<Row>(UPDATE, values);
      return rows.length > 0 ? this.toEntity(rows[0]) : null;
    } catch (error) {
      if (isUniqueViolation(error, SLUG_INDEXES)) throw new SlugTakenError(`slug ${slug} is taken`, { cause: error });
      throw error;
    }
  }

  /**
   * Deletes the blog when it meets `condition`; its slugs go with it.
   * @returns whether a row was deleted.
   */
  async delete(id: number, condition: WriteCondition): Promise<boolean> {
    const { rowCount } = await this.sql.onPrimary(DELETE, this.writable(id, condition));
    return rowCount > 0;
  }

  /** The parameters $1-$5 of {@link WRITABLE}. */
  private writable(id: number, condition: WriteCondition): unknown[] {
    const values = writableValues(id, condition);
    values.push(condition.now);
    return values;
  }

  /** The blog of a row; its tags' names from `tag_names` when the statement gave them (a write's do). */
  private toEntity(row: Row): Blog {
    const blog = blogOf(row);
    if (row.tag_names !== undefined) blog.tags = row.tag_names as string[];
    return blog;
  }

  /** `blogs` with the names of their tags, looked up once for all of them (none when no blog has tags). */
  private async withTagNames(blogs: Blog[]): Promise<Blog[]> {
    const names = blogs.some((blog) => blog.tagSlugs.length > 0)
      ? await this.tags.names(blogs.flatMap((blog) => blog.tagSlugs))
      : new Map<string, string>();
    for (const blog of blogs) blog.tags = blog.tagSlugs.flatMap((slug) => names.get(slug) ?? []);
    return blogs;
  }
}
