import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Not, Repository } from 'typeorm';
import { Blog } from './blog.entity';
import type { BlogInputDto } from './dto/blog-input.dto';

/** One page of blogs, newest first, and the exact number of all blogs in the same snapshot. */
export interface BlogPage {
  readonly items: readonly Blog[];
  readonly total: number;
}

/** Versions an update may change (RFC 9110 §13): only `match` (`If-Match`), none of `noneMatch` (`If-None-Match`). */
export interface VersionCondition {
  readonly match?: readonly number[];
  readonly noneMatch?: readonly number[];
}

/**
 * The page and its total in one statement, so both come from one snapshot. TypeORM cannot say it:
 * the ids are found on the `(created_at, id)` index from the nearer end of the list
 * (docs/architecture.md, "The page query"), and the total is the sum of the counter rows.
 */
const PAGE_WITH_TOTAL = `
  WITH c AS (SELECT sum("n")::int8 AS total FROM "blog_counts"),
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

/** Data access of `Blog` over the injected `Repository<Blog>`; every method is one statement. */
@Injectable()
export class BlogsRepository {
  constructor(@InjectRepository(Blog) private readonly blogs: Repository<Blog>) {}

  /** The blog with this id, or null. */
  findById(id: number): Promise<Blog | null> {
    return this.blogs.findOneBy({ id });
  }

  /** Blogs `offset` to `offset + limit - 1`, newest first (`createdAt`, then `id`, descending), and the total. */
  async findPage(limit: number, offset: number): Promise<BlogPage> {
    const rows: Record<string, unknown>[] = await this.blogs.query(PAGE_WITH_TOTAL, [limit, offset]);
    const total = Number(rows[0]?.total ?? 0);
    // An empty page is the LEFT JOIN's one row without a blog.
    const items = rows.filter((row) => row.id !== null).map((row) => this.toEntity(row));
    return { items, total };
  }

  /** Stores a new blog; the database assigns `id`, both (equal) timestamps and `version` 1. */
  async insert(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    const result = await this.blogs
      .createQueryBuilder()
      .insert()
      .values({ title: input.title, content: input.content, author: input.author, ownerSub })
      .returning('*')
      .execute();
    return this.toEntity((result.raw as Record<string, unknown>[])[0]);
  }

  /**
   * Replaces title, content and author, advances `updatedAt` strictly and increments `version`,
   * when `requiredOwner` (if given) owns the blog and its version meets `versions`.
   * @returns the row as stored, or null when no row changed.
   */
  async update(
    id: number,
    input: BlogInputDto,
    requiredOwner: string | undefined,
    versions: VersionCondition = {},
  ): Promise<Blog | null> {
    const version =
      versions.match && versions.noneMatch
        ? In(versions.match.filter((v) => !versions.noneMatch?.includes(v)))
        : versions.match
          ? In([...versions.match])
          : versions.noneMatch
            ? Not(In([...versions.noneMatch]))
            : undefined;
    const result = await this.blogs
      .createQueryBuilder()
      .update()
      .set({
        title: input.title,
        content: input.content,
        author: input.author,
        // The column keeps milliseconds: two updates within one must still move it forward.
        updatedAt: () => `GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond')`,
        version: () => '"version" + 1',
      })
      .where({ id, ...(requiredOwner === undefined ? {} : { ownerSub: requiredOwner }), ...(version && { version }) })
      .returning('*')
      .execute();
    const [row] = result.raw as Record<string, unknown>[];
    return row ? this.toEntity(row) : null;
  }

  private toEntity(row: Record<string, unknown>): Blog {
    const blog = this.blogs.create();
    for (const column of this.blogs.metadata.columns) column.setEntityValue(blog, row[column.databaseName]);
    return blog;
  }
}
