import { BadRequestException, HttpException, Injectable } from '@nestjs/common';
import { BLOGS_ADMIN_SCOPE, Principal } from '../auth/principal';
import type { WritePreconditions } from '../common/http/entity-tag-condition';
import { versionCondition } from '../common/http/versioned-entity-tag';
import { notFound, ResourceWording, writeRefusal } from '../common/http/write-refusal';
import type { ListPage } from '../common/paging/list-envelope';
import { PAGING } from '../common/paging/paging-query';
import { BlogFilters, BlogListPosition, BlogSort, DEFAULT_BLOG_SORT, sortOrder } from './blog-list';
import { BlogListCursors } from './blog-list-cursor';
import type { Blog } from './blog.entity';
import { BlogChanges, BlogsRepository } from './blogs.repository';
import type { BlogInputDto } from './dto/blog-input.dto';

/** How the errors of the blog resource name it. */
const BLOG: ResourceWording = { title: 'Blog', noun: 'blog', adminScope: BLOGS_ADMIN_SCOPE };

/** The owner a principal's write must match: none for a `blogs:admin` token, else its `sub`. */
export function requiredOwner(principal: Principal): string | undefined {
  return principal.scopes.includes(BLOGS_ADMIN_SCOPE) ? undefined : principal.sub;
}

/** The filters `request` gives, without the unset ones. */
function filtersOf(request: BlogFilters): BlogFilters {
  const { author, q, createdAfter, createdBefore, updatedAfter } = request;
  const given = { author, q, createdAfter, createdBefore, updatedAfter };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
}

/** Where the page after `blog` starts in the order `sort`. */
function positionAfter(blog: Blog, sort: BlogSort): BlogListPosition {
  const { field } = sortOrder(sort);
  return field === 'id' ? { id: blog.id } : { id: blog.id, value: blog[field] };
}

/** A list request: filters, order, and where the page starts (`offset`, or `cursor`, never both). */
export interface BlogListRequest extends BlogFilters {
  readonly limit: number;
  readonly offset?: number;
  readonly sort: BlogSort;
  readonly cursor?: string;
  /** Whether the blogs need their `content` (the one large field). */
  readonly withContent: boolean;
}

/** The rules of the blog resource: list, existence, ownership and preconditions. */
@Injectable()
export class BlogsService {
  constructor(
    private readonly blogs: BlogsRepository,
    private readonly cursors: BlogListCursors,
  ) {}

  /**
   * A page of the blogs matching the filters in the requested order, with their exact total; an
   * offset past the end gives an empty page. `nextCursor` is set when more matching blogs follow.
   * @throws BadRequestException naming `q` when it has no word to search for, or `cursor` when it does
   *   not continue this list.
   */
  async list(request: BlogListRequest): Promise<ListPage<Blog>> {
    const { limit, sort, cursor, withContent } = request;
    const filters = filtersOf(request);
    if (filters.q !== undefined && !(await this.blogs.isSearchable(filters.q))) {
      throw new BadRequestException([
        'q must contain at least one word to search for (letters or digits, not only punctuation or operators)',
      ]);
    }
    const after = cursor === undefined ? undefined : this.cursors.decode(cursor, sort, filters);
    const offset = after === undefined ? (request.offset ?? PAGING.defaultOffset) : 0;
    const unfiltered = Object.keys(filters).length === 0;
    // The hot path: the newest-first offset list has its own statement (docs/architecture.md, "The page query").
    const page =
      unfiltered && sort === DEFAULT_BLOG_SORT && after === undefined
        ? await this.blogs.findPage(limit, offset).then((found) => ({
            ...found,
            more: offset + found.items.length < found.total,
          }))
        : await this.blogs.findList({ filters, sort, limit, offset, after, withContent });
    const last = page.items.at(-1);
    return {
      items: page.items,
      total: page.total,
      offset: after === undefined ? offset : null,
      nextCursor: page.more && last ? this.cursors.encode(sort, filters, positionAfter(last, sort)) : null,
    };
  }

  /** @throws NotFoundException when no blog has this id. */
  async findOne(id: number): Promise<Blog> {
    const blog = await this.blogs.findById(id);
    if (!blog) throw notFound(BLOG, id);
    return blog;
  }

  /** Stores a new blog owned by `ownerSub`. */
  create(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    return this.blogs.insert(input, ownerSub);
  }

  /**
   * Sets the fields `changes` gives (all three on PUT, some on PATCH) in one statement that also checks
   * ownership and the preconditions; only when it changed nothing is the blog read again to choose the error.
   * @throws NotFoundException (404), ForbiddenException (403), PreconditionFailedException (412), in that order.
   */
  async update(
    id: number,
    changes: BlogChanges,
    principal: Principal,
    preconditions: WritePreconditions = {},
  ): Promise<Blog> {
    const owner = requiredOwner(principal);
    const versions = versionCondition(id, preconditions);
    const updated = versions && (await this.blogs.update(id, changes, owner, versions));
    if (updated) return updated;
    throw await this.refusal(id, owner, preconditions, 'update');
  }

  /**
   * Deletes the blog in one statement that also checks ownership and the preconditions; only when it
   * deleted nothing is the blog read again to choose the error.
   * @throws NotFoundException (404), ForbiddenException (403), PreconditionFailedException (412), in that order.
   */
  async remove(id: number, principal: Principal, preconditions: WritePreconditions = {}): Promise<void> {
    const owner = requiredOwner(principal);
    const versions = versionCondition(id, preconditions);
    if (versions && (await this.blogs.delete(id, owner, versions))) return;
    throw await this.refusal(id, owner, preconditions, 'delete');
  }

  /** Why a write of blog `id` that changed nothing was refused, as it stands now: 404, 403, 412, in that order. */
  private async refusal(
    id: number,
    owner: string | undefined,
    preconditions: WritePreconditions,
    action: 'update' | 'delete',
  ): Promise<HttpException> {
    // On the primary: a replica may not have the write that made this one fail yet.
    const existing = await this.blogs.findById(id, 'primary');
    return writeRefusal(BLOG, { id, existing, owner, preconditions, action });
  }
}
