import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Blog } from './blog.entity';
import type { BlogInputDto } from './dto/blog-input.dto';

/** One page of blogs, newest first, and the exact number of all blogs in the same snapshot. */
export interface BlogPage {
  readonly items: readonly Blog[];
  readonly total: number;
}

/** The fields an update sets: all three for a replacement (PUT), some for a merge patch (PATCH). */
export type BlogChanges = Partial<Pick<Blog, 'title' | 'content' | 'author'>>;

/** Versions a write may change (RFC 9110 §13): only `match` (`If-Match`), none of `noneMatch` (`If-None-Match`). */
export interface VersionCondition {
  readonly match?: readonly number[];
  readonly noneMatch?: readonly number[];
}

// Plain SQL where the Repository API measured slower on a hot path (docs/performance.md, "Data access").

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
    SELECT * FROM "blogs" WHERE "id" IN (SELECT "id" FROM keys) ORDER BY "created_at" DESC, "id" DESC
  ) p ON true`;

const FIND_BY_ID = `SELECT * FROM "blogs" WHERE "id" = $1`;

const INSERT = `INSERT INTO "blogs" ("title", "content", "author", "owner_sub") VALUES ($1, $2, $3, $4) RETURNING *`;

/** The blog $1 when owned by $2 (null: any owner) at a version in $3 and not in $4 (null: any). */
const WRITABLE = `"id" = $1 AND ($2::text IS NULL OR "owner_sub" = $2)
    AND ($3::int4[] IS NULL OR "version" = ANY($3::int4[])) AND ($4::int4[] IS NULL OR "version" <> ALL($4::int4[]))`;

/** Sets the fields given in $5-$7 (null: kept), so that one statement serves PUT and PATCH. */
const UPDATE = `UPDATE "blogs" SET "title" = COALESCE($5, "title"), "content" = COALESCE($6, "content"),
    "author" = COALESCE($7, "author"),
    "updated_at" = GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond'), "version" = "version" + 1
  WHERE ${WRITABLE}
  RETURNING *`;

const DELETE = `DELETE FROM "blogs" WHERE ${WRITABLE}`;

type Row = Record<string, unknown>;

/** Data access of `Blog` over the injected `Repository<Blog>`; every method is one statement. */
@Injectable()
export class BlogsRepository {
  constructor(@InjectRepository(Blog) private readonly blogs: Repository<Blog>) {}

  /** The blog with this id, or null. */
  async findById(id: number): Promise<Blog | null> {
    const [row] = await this.blogs.query<Row[]>(FIND_BY_ID, [id]);
    return row ? this.toEntity(row) : null;
  }

  /** Blogs `offset` to `offset + limit - 1`, newest first (`createdAt`, then `id`, descending), and the total. */
  async findPage(limit: number, offset: number): Promise<BlogPage> {
    const rows = await this.blogs.query<Row[]>(PAGE_WITH_TOTAL, [limit, offset]);
    const total = Number(rows[0]?.total ?? 0);
    // An empty page is the LEFT JOIN's one row without a blog.
    const items = rows.filter((row) => row.id !== null).map((row) => this.toEntity(row));
    return { items, total };
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

  private toEntity(row: Row): Blog {
    const blog = this.blogs.create();
    for (const column of this.blogs.metadata.columns) column.setEntityValue(blog, row[column.databaseName]);
    return blog;
  }
}
