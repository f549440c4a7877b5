import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryRunner, Repository, SelectQueryBuilder } from 'typeorm';
import { ReadReplicas } from '../database/read-replicas';
import { BlogCount } from './blog-count.entity';
import { BlogFilters, BlogListPosition, BlogSort, BlogSortField, sortOrder } from './blog-list';
import { Blog } from './blog.entity';
import type { BlogInputDto } from './dto/blog-input.dto';

/** One page of blogs, newest first, and the exact number of all blogs in the same snapshot. */
export interface BlogPage {
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
export interface BlogListPage extends BlogPage {
  readonly more: boolean;
}

/** Versions a write may change (RFC 9110 §13): only `match` (`If-Match`), none of `noneMatch` (`If-None-Match`). */
export interface VersionCondition {
  readonly match?: readonly number[];
  readonly noneMatch?: readonly number[];
}

// Plain SQL where the Repository API measured slower on a hot path (docs/performance.md, "Data access").

/** The columns a `Blog` is read from: all but the generated `search_vector`, which is large and only searched. */
const BLOG_COLUMNS = `"id", "title", "content", "author", "owner_sub", "created_at", "updated_at", "version"`;

/** The page and its total from one snapshot: keys from the nearer end of the index (docs/architecture.md, "The page query"). */
const PAGE_WITH_TOTAL = `WITH c AS (SELECT sum("n")::int8 AS total FROM "blog_counts"),
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
  ) p ON true`;

/** PostgreSQL's own answer whether a search text has a word: an empty tsquery (`!!!`, `-`, `""`) has no node. */
const IS_SEARCHABLE = `SELECT numnode(websearch_to_tsquery('simple', $1)) > 0 AS "searchable"`;

const FIND_BY_ID = `SELECT ${BLOG_COLUMNS} FROM "blogs" WHERE "id" = $1`;

const INSERT = `INSERT INTO "blogs" ("title", "content", "author", "owner_sub") VALUES ($1, $2, $3, $4) RETURNING ${BLOG_COLUMNS}`;

/** The blog $1 when owned by $2 (null: any owner) at a version in $3 and not in $4 (null: any). */
const WRITABLE = `"id" = $1 AND ($2::text IS NULL OR "owner_sub" = $2)
    AND ($3::int4[] IS NULL OR "version" = ANY($3::int4[])) AND ($4::int4[] IS NULL OR "version" <> ALL($4::int4[]))`;

/** Sets the fields given in $5-$7 (null: kept), so that one statement serves PUT and PATCH. */
const UPDATE = `UPDATE "blogs" SET "title" = COALESCE($5, "title"), "content" = COALESCE($6, "content"),
    "author" = COALESCE($7, "author"),
    "updated_at" = GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond'), "version" = "version" + 1
  WHERE ${WRITABLE}
  RETURNING ${BLOG_COLUMNS}`;

const DELETE = `DELETE FROM "blogs" WHERE ${WRITABLE}`;

type Row = Record<string, unknown>;

/** Where a read goes: a replica within its lag bound (else the primary), or the primary, which has every write. */
export type ReadSource = 'replica' | 'primary';

/** How each sort field is ordered in the page query and in its outer query (`p`), `id` aside: it is the tie-breaker. */
const SORT_COLUMNS: Readonly<Record<Exclude<BlogSortField, 'id'>, { readonly page: string; readonly outer: string }>> =
  {
    createdAt: { page: 'blog.createdAt', outer: 'p.created_at' },
    updatedAt: { page: 'blog.updatedAt', outer: 'p.updated_at' },
    title: { page: 'blog.title COLLATE "C"', outer: 'p.title COLLATE "C"' },
  };

/** The full-text match of `q` (docs/api.md, "Search"). */
const SEARCH_MATCH = `blog.searchVector @@ websearch_to_tsquery('simple', :q)`;

/**
 * Data access of `Blog` over the injected `Repository<Blog>`; every method is one statement. Reads go to the
 * replicas ({@link ReadReplicas}) unless told otherwise, writes to the primary.
 */
@Injectable()
export class BlogsRepository {
  constructor(
    @InjectRepository(Blog) private readonly blogs: Repository<Blog>,
    private readonly replicas: ReadReplicas,
  ) {}

  /** The blog with this id, or null, read from `source`. */
  async findById(id: number, source: ReadSource = 'replica'): Promise<Blog | null> {
    const [row] =
      source === 'primary'
        ? await this.blogs.query<Row[]>(FIND_BY_ID, [id])
        : await this.replicas.query<Row[]>(FIND_BY_ID, [id]);
    return row ? this.toEntity(row) : null;
  }

  /** Blogs `offset` to `offset + limit - 1`, newest first (`createdAt`, then `id`, descending), and the total. */
  async findPage(limit: number, offset: number): Promise<BlogPage> {
    const rows = await this.replicas.query<Row[]>(PAGE_WITH_TOTAL, [limit, offset]);
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
    const rows = await this.replicas.read((runner) => this.listQuery(query, runner).getRawMany<Row>());
    const total = Number(rows[0]?.total ?? 0);
    const items = rows.filter((row) => row.id !== null).map((row) => this.toEntity(row));
    return { items: items.slice(0, query.limit), total, more: items.length > query.limit };
  }

  /** The statement of {@link findList}, on `runner`. */
  private listQuery(query: BlogListQuery, runner: QueryRunner): SelectQueryBuilder<object> {
    const { filters, sort, withContent } = query;
    const { field, descending } = sortOrder(sort);
    const direction = descending ? 'DESC' : 'ASC';
    const sortColumn = field === 'id' ? undefined : SORT_COLUMNS[field];
    const filtered = Object.values(filters).some((value) => value !== undefined);
    // A search reads every match once, for its total and its page alike (docs/architecture.md, "The list queries").
    const search = filters.q !== undefined;
    const select = this.blogs.manager.createQueryBuilder(runner);
    if (search) {
      const matches = this.whereMatching(this.blogs.createQueryBuilder('blog').select('blog.id', 'id'), filters);
      if (sortColumn) matches.addSelect(sortColumn.page, 'key');
      select.addCommonTableExpression(matches, 'matches', { materialized: true });
    }
    return select
      .select('t.total', 'total')
      .addSelect('p.*')
      .from((total) => {
        if (search) return total.select('count(*)', 'total').from('matches', 'm');
        if (!filtered) return total.select('sum(counter.count)', 'total').from(BlogCount, 'counter');
        return this.whereMatching(total.select('count(*)', 'total').from(Blog, 'blog'), filters);
      }, 't')
      .leftJoin(
        (page) => {
          page.from(Blog, 'blog').select('blog.id', 'id');
          for (const column of this.blogs.metadata.columns) {
            if (column.isSelect && column.propertyName !== 'id' && (withContent || column.propertyName !== 'content')) {
              page.addSelect(`blog.${column.propertyName}`, column.databaseName);
            }
          }
          const keyset = { key: sortColumn && (search ? 'm.key' : sortColumn.page), id: search ? 'm.id' : 'blog.id' };
          if (!search) return this.pageOf(this.whereMatching(page, filters), keyset, query, direction);
          const ids = this.pageOf(page.subQuery().select('m.id').from('matches', 'm'), keyset, query, direction);
          return page.where(`blog.id IN ${ids.getQuery()}`);
        },
        'p',
        'true',
      )
      .orderBy(sortColumn?.outer ?? 'p.id', direction)
      .addOrderBy('p.id', direction);
  }

  /** `query` cut to the page: after `after` in the order of `key` (absent: by id alone) and `id`, then offset and limit + 1. */
  private pageOf<T extends SelectQueryBuilder<object>>(
    query: T,
    { key, id }: { key?: string; id: string },
    { after, offset, limit }: BlogListQuery,
    direction: 'ASC' | 'DESC',
  ): T {
    if (after !== undefined) {
      const comparison = direction === 'DESC' ? '<' : '>';
      query.andWhere(key ? `(${key}, ${id}) ${comparison} (:afterValue, :afterId)` : `${id} ${comparison} :afterId`, {
        afterValue: after.value,
        afterId: after.id,
      });
    }
    if (key) query.orderBy(key, direction);
    return query
      .addOrderBy(id, direction)
      .offset(offset)
      .limit(limit + 1);
  }

  /** Whether `q` has a word to search for: `websearch_to_tsquery('simple', q)` is not empty. */
  async isSearchable(q: string): Promise<boolean> {
    const [row] = await this.replicas.query<{ searchable: boolean }[]>(IS_SEARCHABLE, [q]);
    return row.searchable;
  }

  /** Stores a new blog; the database assigns `id`, both (equal) timestamps and `version` 1. */
  async insert(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    const values = [input.title, input.content, input.author, ownerSub];
    const [row] = await this.blogs.query<Row[]>(INSERT, values);
    return this.toEntity(row);
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
    // TypeORM answers an UPDATE or a DELETE as [rows, affected count].
    const [[row]] = await this.blogs.query<[Row[], number]>(UPDATE, values);
    return row ? this.toEntity(row) : null;
  }

  /**
   * Deletes the blog when `requiredOwner` (if given) owns it and its version meets `versions`.
   * @returns whether a row was deleted.
   */
  async delete(id: number, requiredOwner: string | undefined, versions: VersionCondition = {}): Promise<boolean> {
    const [, deleted] = await this.blogs.query<[Row[], number]>(DELETE, this.writable(id, requiredOwner, versions));
    return deleted > 0;
  }

  /** The parameters $1-$4 of {@link WRITABLE}. */
  private writable(id: number, requiredOwner: string | undefined, versions: VersionCondition): unknown[] {
    return [id, requiredOwner ?? null, versions.match ?? null, versions.noneMatch ?? null];
  }

  /** `query` narrowed to the blogs (alias `blog`) that match every filter given. */
  private whereMatching<T extends SelectQueryBuilder<object>>(query: T, filters: BlogFilters): T {
    const { author, q, createdAfter, createdBefore, updatedAfter } = filters;
    if (author !== undefined) query.andWhere('blog.author = :author', { author });
    if (q !== undefined) query.andWhere(SEARCH_MATCH, { q });
    if (createdAfter !== undefined) query.andWhere('blog.createdAt > :createdAfter', { createdAfter });
    if (createdBefore !== undefined) query.andWhere('blog.createdAt < :createdBefore', { createdBefore });
    if (updatedAfter !== undefined) query.andWhere('blog.updatedAt > :updatedAfter', { updatedAfter });
    return query;
  }

  private toEntity(row: Row): Blog {
    const blog = this.blogs.create();
    for (const column of this.blogs.metadata.columns) column.setEntityValue(blog, row[column.databaseName]);
    return blog;
  }
}
