import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BLOGS_ADMIN_SCOPE, Principal } from '../auth/principal';
import { Blog } from './blog.entity';
import type { BlogInputDto } from './dto/blog-input.dto';

/** One page of blogs, newest first, with the number of all blogs. */
export interface BlogPage {
  readonly items: readonly Blog[];
  readonly total: number;
}

/**
 * True when `principal` may change `blog`: its creator, or a holder of the `blogs:admin` scope
 * (API contract, "Authentication and authorisation").
 */
export function mayUpdate(blog: Pick<Blog, 'ownerSub'>, principal: Principal): boolean {
  return blog.ownerSub === principal.sub || principal.scopes.includes(BLOGS_ADMIN_SCOPE);
}

/**
 * SQL of the new `updated_at` of an update: the database's time of the update, but at least 1 ms
 * after the stored value. The column keeps milliseconds, so two updates within one millisecond
 * (or after the database clock stepped back) would otherwise leave `updatedAt` where it was; this
 * way every successful update advances it strictly, as the contract promises.
 */
export const NEXT_UPDATED_AT_SQL = `GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond')`;

/** The rules of the blog resource: paging order, existence and ownership. */
@Injectable()
export class BlogsService {
  constructor(@InjectRepository(Blog) private readonly blogs: Repository<Blog>) {}

  /**
   * A page of blogs, newest first (`createdAt` descending, then `id` descending, so pages are
   * stable), and the exact number of blogs.
   *
   * @param limit - page size, 1–100.
   * @param offset - blogs to skip, 0–2147483647; past the end gives an empty page.
   */
  async list(limit: number, offset: number): Promise<BlogPage> {
    const [items, total] = await this.blogs.findAndCount({
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
    return { items, total };
  }

  /** @throws NotFoundException (404) when no blog has this id. */
  async findOne(id: number): Promise<Blog> {
    const blog = await this.blogs.findOneBy({ id });
    if (!blog) throw new NotFoundException(`Blog ${id} not found`);
    return blog;
  }

  /** Stores a new blog owned by `ownerSub`; the database assigns id and both (equal) timestamps. */
  async create(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    const blog = this.blogs.create({
      title: input.title,
      content: input.content,
      author: input.author,
      ownerSub,
    });
    await this.blogs.insert(blog);
    return blog;
  }

  /**
   * Replaces title, content and author and sets `updatedAt` to the time of the update (strictly
   * later than before, see {@link NEXT_UPDATED_AT_SQL}), even when the values are unchanged
   * (spec §4.4: the update returns the time of the update).
   *
   * One `UPDATE … RETURNING *`: the blog returned is the row as stored by that statement, not the
   * input copied onto the row read before it.
   *
   * @returns the updated blog, every field from the database.
   * @throws NotFoundException (404) when no blog has this id, also when it is gone by the time of
   *   the UPDATE (the statement then changes and returns no row).
   * @throws ForbiddenException (403) when `principal` is neither the owner nor an admin.
   */
  async update(id: number, input: BlogInputDto, principal: Principal): Promise<Blog> {
    const blog = await this.findOne(id);
    if (!mayUpdate(blog, principal)) {
      throw new ForbiddenException('Only the author of this blog may update it');
    }
    // whereEntity + updateEntity(true): TypeORM writes the row of RETURNING * back onto `blog`.
    const result = await this.blogs
      .createQueryBuilder()
      .update(Blog)
      .set({
        title: input.title,
        content: input.content,
        author: input.author,
        updatedAt: () => NEXT_UPDATED_AT_SQL,
      })
      .whereEntity(blog)
      .returning('*')
      .updateEntity(true)
      .execute();
    // No row back means none was updated: the blog vanished after it was read. Answering 200
    // would report a change that was never stored.
    const rows: readonly unknown[] = Array.isArray(result.raw) ? result.raw : [];
    if (rows.length === 0) throw new NotFoundException(`Blog ${id} not found`);
    return blog;
  }
}
