import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityMetadata } from 'typeorm';
import { PreparedStatement, runPrepared } from '../database/prepared-statement';
import { BlogCount } from './blog-count.entity';
import { Blog } from './blog.entity';
import type { BlogInputDto } from './dto/blog-input.dto';

/** One page of blogs, newest first, with the number of all blogs. */
export interface BlogPage {
  readonly items: readonly Blog[];
  /** Exact number of blogs in the same snapshot as `items`. */
  readonly total: number;
}

/** A page row: the blog's columns (null when the page is empty) and the total, as `pg` gives int8. */
type PageRow = { readonly [K in keyof Blog]: Blog[K] | null } & { readonly total: string | number };

/**
 * The versions an update may change, checked inside its `UPDATE` (the preconditions of a
 * conditional request, RFC 9110 §13): `match`, only these (`If-Match`; empty: none);
 * `noneMatch`, any but these (`If-None-Match`). Undefined: any version.
 */
export interface VersionCondition {
  readonly match?: readonly number[];
  readonly noneMatch?: readonly number[];
}

/**
 * The `blogs` statements, written once at start-up from the entity metadata (so `Blog` and
 * `BlogCount` stay the only places that name columns) and run as named prepared statements.
 */
export interface BlogStatements {
  readonly findById: PreparedStatement;
  readonly page: PreparedStatement;
  readonly insert: PreparedStatement;
  readonly update: PreparedStatement;
}

/**
 * Builds {@link BlogStatements} for the tables behind `blog` and `count` metadata.
 *
 * - `page`: the exact total is the sum of the counter rows kept by the insert/delete triggers
 *   (O(1) in the number of blogs), joined to the page in one statement, so both come from one
 *   snapshot and an offset past the end still returns the total. The page's ids are found first on
 *   the `(created_at, id)` index alone (index-only scans), then only those rows are read. An offset
 *   in the older half of the list is counted from the oldest end instead (ascending, offset
 *   `total - offset - limit`), so the cost of a page grows with its distance from the nearer end,
 *   at most half the table, and the last page is as cheap as the first. That relies on the total
 *   being exact in the same snapshot, which the triggers guarantee.
 * - `update`: sets `updated_at` to the time of the update but at least 1 ms past the stored value
 *   (the column keeps milliseconds), so every successful update advances it strictly, increments
 *   `version`, and changes the row only when `$5` is null (an admin) or the blog's owner, and its
 *   version is among `$6` (when not null) and not among `$7` (when not null): so of concurrent
 *   updates made with the same `If-Match`, exactly one changes the row.
 */
export function buildBlogStatements(blog: EntityMetadata, count: EntityMetadata): BlogStatements {
  const column = (metadata: EntityMetadata, property: string): string => {
    const found = metadata.findColumnWithPropertyName(property);
    if (!found) throw new Error(`${metadata.name} has no column for ${property}`);
    return `"${found.databaseName}"`;
  };
  const b = (property: keyof Blog): string => column(blog, property);
  const blogs = `"${blog.tableName}"`;
  const select = blog.columns.map((c) => `"${c.databaseName}" AS "${c.propertyName}"`).join(', ');
  const newestFirst = `${b('createdAt')} DESC, ${b('id')} DESC`;
  const oldestFirst = `${b('createdAt')}, ${b('id')}`;
  const total = `SELECT sum(${column(count, 'count')})::int8 AS "total" FROM "${count.tableName}"`;
  return {
    findById: { name: 'blogs.find-by-id', text: `SELECT ${select} FROM ${blogs} WHERE ${b('id')} = $1` },
    page: {
      name: 'blogs.page',
      text:
        `WITH c AS (${total}), keys AS (` +
        `(SELECT ${b('id')} FROM ${blogs} ORDER BY ${newestFirst} ` +
        `LIMIT CASE WHEN $2::int8 * 2 < (SELECT "total" FROM c) THEN $1 ELSE 0 END OFFSET $2) ` +
        `UNION ALL ` +
        `(SELECT ${b('id')} FROM ${blogs} ORDER BY ${oldestFirst} ` +
        `LIMIT CASE WHEN $2::int8 * 2 >= (SELECT "total" FROM c) THEN greatest(least($1, (SELECT "total" FROM c) - $2), 0) ELSE 0 END ` +
        `OFFSET greatest((SELECT "total" FROM c) - $2 - $1, 0))) ` +
        `SELECT c."total", p.* FROM c LEFT JOIN LATERAL (` +
        `SELECT ${select} FROM ${blogs} WHERE ${b('id')} IN (SELECT ${b('id')} FROM keys) ORDER BY ${newestFirst}) p ON true`,
    },
    insert: {
      name: 'blogs.insert',
      text:
        `INSERT INTO ${blogs} (${b('title')}, ${b('content')}, ${b('author')}, ${b('ownerSub')}) ` +
        `VALUES ($1, $2, $3, $4) RETURNING ${select}`,
    },
    update: {
      name: 'blogs.update',
      text:
        `UPDATE ${blogs} SET ${b('title')} = $2, ${b('content')} = $3, ${b('author')} = $4, ` +
        `${b('updatedAt')} = GREATEST(CURRENT_TIMESTAMP, ${b('updatedAt')} + interval '1 millisecond'), ` +
        `${b('version')} = ${b('version')} + 1 ` +
        `WHERE ${b('id')} = $1 AND (${b('ownerSub')} = $5 OR $5 IS NULL) ` +
        `AND ($6::int4[] IS NULL OR ${b('version')} = ANY($6::int4[])) ` +
        `AND ($7::int4[] IS NULL OR ${b('version')} <> ALL($7::int4[])) RETURNING ${select}`,
    },
  };
}

/**
 * Data access of the blog resource: each method is one SQL statement, prepared once per pooled
 * connection. Holds no rules of its own (those are `BlogsService`'s) beyond what must be atomic.
 */
@Injectable()
export class BlogsRepository {
  private readonly statements: BlogStatements;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.statements = buildBlogStatements(dataSource.getMetadata(Blog), dataSource.getMetadata(BlogCount));
  }

  /** The blog with this id, or undefined. */
  async findById(id: number): Promise<Blog | undefined> {
    const [row] = await runPrepared<Blog>(this.dataSource, this.statements.findById, [id]);
    return row;
  }

  /**
   * A page, newest first (`createdAt` descending, then `id` descending), and the exact total.
   *
   * @param limit - page size, 1–100.
   * @param offset - blogs to skip, 0–2147483647.
   */
  async findPage(limit: number, offset: number): Promise<BlogPage> {
    const rows = await runPrepared<PageRow>(this.dataSource, this.statements.page, [limit, offset]);
    const total = Number(rows[0]?.total ?? 0);
    // An empty page is the one row of the LEFT JOIN with no blog in it.
    if (rows.length === 1 && rows[0].id === null) return { items: [], total };
    return { items: rows.map(({ total: _total, ...blog }) => blog as Blog), total };
  }

  /** Stores a new blog; the database assigns `id` and both (equal) timestamps. */
  async insert(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    const [row] = await runPrepared<Blog>(this.dataSource, this.statements.insert, [
      input.title,
      input.content,
      input.author,
      ownerSub,
    ]);
    return row;
  }

  /**
   * Replaces title, content and author of blog `id`, advances its `updatedAt` and increments its
   * `version`, in one statement, if `requiredOwner` is undefined or owns the blog and its version
   * meets `versions`.
   *
   * @returns the row as stored, or undefined when no row was changed (no such blog, not
   *   `requiredOwner`'s, or at another version).
   */
  async update(
    id: number,
    input: BlogInputDto,
    requiredOwner: string | undefined,
    versions: VersionCondition = {},
  ): Promise<Blog | undefined> {
    const [row] = await runPrepared<Blog>(this.dataSource, this.statements.update, [
      id,
      input.title,
      input.content,
      input.author,
      requiredOwner ?? null,
      versions.match ?? null,
      versions.noneMatch ?? null,
    ]);
    return row;
  }
}
