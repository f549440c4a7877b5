import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { VersionCondition } from '../common/http/versioned-entity-tag';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import { BlogFilters, BlogListPosition, BlogSort } from './blog-list';
import { blogColumns, blogListStatement } from './blog-list-statement';
import { Blog } from './blog.entity';
import type { BlogInputDto } from './dto/blog-input.dto';

/** One page of blogs, newest first, and the exact number of all blogs in the same snapshot. */
interface BlogPage {
  readonly items: readonly Blog[];
  readonly total: number;
}

/** The fields an update sets: all three for a replacement (PUT), some for a merge patch (PATCH). */
export type BlogChanges = Partial<Pick<Blog, 'title' | 'content' | 'author'>>;

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
}

/** A page, the exact number of all blogs matching the filters, and whether more follow the page. */
interface BlogListPage extends BlogPage {
  readonly more: boolean;
}

// Named prepared statements where the Repository API measured slower on a hot path (docs/performance.md, "Data access").

const BLOG_COLUMNS = blogColumns(true);

/** The page and its total from one snapshot: keys from the nearer end of the index (docs/architecture.md, "The page query"). */
const PAGE_WITH_TOTAL: PreparedStatement = {
  name: 'blogs.page',
  text: `WITH c AS (SELECT sum("n")::int8 AS total FROM "blog_counts"),
  keys AS (
    (SELECT "id" FROM "blogs" ORDER BY "created_at" DESC, "id" DESC
      LIMIT CASE WHEN $2::int8 * 2 < (SELECT total FROM c) THEN $1 ELSE 0 END OFFSET $2)
    UNION ALL
    (SELECT "id" FROM "blogs" ORDER BY "created_at", "id"
      LIMIT CASE WHEN $2::int8 * 2 >= (SELECT total FROM c)
        THEN greatest(least($1, (SELECT total FROM c) - $2), 0) ELSE 0 END
      OFFSET greatest((SELECT total FROM c) - $2 - $1, 0)))
  SELECT c.total, p.* FROM c LEFT JOIN LATERAL (
    SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE "id" IN (SELECT "id" FROM keys) ORDER BY "created_at" DESC, "id" DESC
  ) p ON true`,
};

/** PostgreSQL's own answer whether a search text has a word: an empty tsquery (`!!!`, `-`, `""`) has no node. */
const IS_SEARCHABLE: PreparedStatement = {
  name: 'blogs.searchable',
  text: `SELECT numnode(websearch_to_tsquery('simple', $1)) > 0 AS "searchable"`,
};

const FIND_BY_ID: PreparedStatement = {
  name: 'blogs.find-by-id',
  text: `SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE "id" = $1`,
};

const INSERT: PreparedStatement = {
  name: 'blogs.insert',
  text: `INSERT INTO "blogs" ("title", "content", "author", "owner_sub") VALUES ($1, $2, $3, $4) RETURNING ${BLOG_COLUMNS}`,
};

/** The blog $1 when owned by $2 (null: any owner) at a version in $3 and not in $4 (null: any). */
const WRITABLE = `"id" = $1 AND ($2::text IS NULL OR "owner_sub" = $2)
    AND ($3::int4[] IS NULL OR "version" = ANY($3::int4[])) AND ($4::int4[] IS NULL OR "version" <> ALL($4::int4[]))`;

/** Sets the fields given in $5-$7 (null: kept), so that one statement serves PUT and PATCH. */
const UPDATE: PreparedStatement = {
  name: 'blogs.update',
  text: `UPDATE "blogs" SET "title" = COALESCE($5, "title"), "content" = COALESCE($6, "content"),
    "author" = COALESCE($7, "author"),
    "updated_at" = GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond'), "version" = "version" + 1
  WHERE ${WRITABLE}
  RETURNING ${BLOG_COLUMNS}`,
};

const DELETE: PreparedStatement = { name: 'blogs.delete', text: `DELETE FROM "blogs" WHERE ${WRITABLE}` };

type Row = Record<string, unknown>;

/** Where a read goes: a replica within its lag bound (else the primary), or the primary, which has every write. */
type ReadSource = 'replica' | 'primary';

/**
 * Data access of `Blog` over the injected `Repository<Blog>`; every method is one statement. Reads go to the
 * replicas ({@link ReadReplicas}) unless told otherwise, writes to the primary.
 */
@Injectable()
export class BlogsRepository {
  constructor(
    @InjectRepository(Blog) private readonly blogs: Repository<Blog>,
    private readonly sql: StatementRunner,
  ) {}

  /** The blog with this id, or null, read from `source`. */
  async findById(id: number, source: ReadSource = 'replica'): Promise<Blog | null> {
    const { rows } =
      source === 'primary'
        ? await this.sql.onPrimary<Row>(FIND_BY_ID, [id])
        : await this.sql.onReplica<Row>(FIND_BY_ID, [id]);
    return rows.length > 0 ? this.toEntity(rows[0]) : null;
  }

  /** Blogs `offset` to `offset + limit - 1`, newest first (`createdAt`, then `id`, descending), and the total. */
  async findPage(limit: number, offset: number): Promise<BlogPage> {
    const { rows } = await this.sql.onReplica<Row>(PAGE_WITH_TOTAL, [limit, offset]);
    const total = Number(rows[0]?.total ?? 0);
    // An empty page is the LEFT JOIN's one row without a blog.
    const items = rows.filter((row) => row.id !== null).map((row) => this.toEntity(row));
    return { items, total };
  }

  /**
   * A page of the blogs matching `filters` in the order `sort` (ties by `id`), after `offset` blogs
   * or after `after`, with the exact number of all matching blogs, both from one statement (one
   * snapshot). The total of an unfiltered list comes from the counter.
   */
  async findList(query: BlogListQuery): Promise<BlogListPage> {
    const { statement, values, lane } = blogListStatement(query);
    const { rows } = await this.sql.onReplica<Row>(statement, values, lane);
    const total = Number(rows[0]?.total ?? 0);
    const items = rows.filter((row) => row.id !== null).map((row) => this.toEntity(row));
    return { items: items.slice(0, query.limit), total, more: items.length > query.limit };
  }

  /** Whether `q` has a word to search for: `websearch_to_tsquery('simple', q)` is not empty. */
  async isSearchable(q: string): Promise<boolean> {
    const { rows } = await this.sql.onReplica<{ searchable: boolean }>(IS_SEARCHABLE, [q]);
    return rows[0].searchable;
  }

  /** Stores a new blog; the database assigns `id`, both (equal) timestamps and `version` 1. */
  async insert(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    const values = [input.title, input.content, input.author, ownerSub];
    const { rows } = await this.sql.onPrimary<Row>(INSERT, values);
    return this.toEntity(rows[0]);
  }

  /**
   * Sets the fields `changes` gives (all three for a replacement), advances `updatedAt` strictly and
   * increments `version`, when `requiredOwner` (if given) owns the blog and its version meets `versions`.
   * @returns the row as stored, or null when no row changed.
   */
  async update(
    id: number,
    changes: BlogChanges,
    requiredOwner: string | undefined,
    versions: VersionCondition = {},
  ): Promise<Blog | null> {
    const { title = null, content = null, author = null } = changes;
    const values = [...this.writable(id, requiredOwner, versions), title, content, author];
    const { rows } = await this.sql.onPrimary<Row>(UPDATE, values);
    return rows.length > 0 ? this.toEntity(rows[0]) : null;
  }

  /**
   * Deletes the blog when `requiredOwner` (if given) owns it and its version meets `versions`.
   * @returns whether a row was deleted.
   */
  async delete(id: number, requiredOwner: string | undefined, versions: VersionCondition = {}): Promise<boolean> {
    const { rowCount } = await this.sql.onPrimary(DELETE, this.writable(id, requiredOwner, versions));
    return rowCount > 0;
  }

  /** The parameters $1-$4 of {@link WRITABLE}. */
  private writable(id: number, requiredOwner: string | undefined, versions: VersionCondition): unknown[] {
    return [id, requiredOwner ?? null, versions.match ?? null, versions.noneMatch ?? null];
  }

  private toEntity(row: Row): Blog {
    const blog = this.blogs.create();
    for (const column of this.blogs.metadata.columns) column.setEntityValue(blog, row[column.databaseName]);
    return blog;
  }
}
