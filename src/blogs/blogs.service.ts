import {
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
  NotFoundException,
  PreconditionFailedException,
} from '@nestjs/common';
import { BLOGS_ADMIN_SCOPE, Principal } from '../auth/principal';
import type { EntityTagCondition } from '../common/http/entity-tag-condition';
import { versionsNamed } from './blog-entity-tag';
import type { Blog } from './blog.entity';
import { BlogPage, BlogsRepository } from './blogs.repository';
import type { BlogInputDto } from './dto/blog-input.dto';

/**
 * The owner a principal's update must match: none for a holder of the `blogs:admin` scope, who may
 * update any blog; else the principal's own `sub` (API contract, "Authentication and authorisation").
 */
export function requiredOwner(principal: Principal): string | undefined {
  return principal.scopes.includes(BLOGS_ADMIN_SCOPE) ? undefined : principal.sub;
}

/**
 * The conditions of a conditional update (RFC 9110 §13.1): the parsed `If-Match` and
 * `If-None-Match` headers, each absent when the request had none.
 */
export interface UpdatePreconditions {
  readonly ifMatch?: EntityTagCondition;
  readonly ifNoneMatch?: EntityTagCondition;
}

/** The rules of the blog resource: paging order, existence and ownership. */
@Injectable()
export class BlogsService {
  constructor(private readonly blogs: BlogsRepository) {}

  /**
   * A page of blogs, newest first (`createdAt` descending, then `id` descending, so pages are
   * stable), and the exact number of blogs.
   *
   * @param limit - page size, 1–100.
   * @param offset - blogs to skip, 0–2147483647; past the end gives an empty page.
   */
  list(limit: number, offset: number): Promise<BlogPage> {
    return this.blogs.findPage(limit, offset);
  }

  /** @throws NotFoundException (404) when no blog has this id. */
  async findOne(id: number): Promise<Blog> {
    const blog = await this.blogs.findById(id);
    if (!blog) throw new NotFoundException(`Blog ${id} not found`);
    return blog;
  }

  /** Stores a new blog owned by `ownerSub`; the database assigns id and both (equal) timestamps. */
  create(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    return this.blogs.insert(input, ownerSub);
  }

  /**
   * Replaces title, content and author, sets `updatedAt` to the time of the update (strictly
   * later than before) and increments `version`, even when the values are unchanged (spec §4.4:
   * the update returns the time of the update).
   *
   * The update is one statement that also checks ownership and the preconditions, so a blog is
   * never changed by someone who may not, nor from a version the request did not allow (of
   * concurrent updates with the same `If-Match`, exactly one succeeds); only when it changed
   * nothing is the blog read again, to tell 404 from 403 from 412 (that order: RFC 9110 §13.2.1
   * evaluates preconditions after the normal request checks). Without preconditions the last
   * writer wins.
   *
   * @param preconditions - `If-Match` (strong comparison: `*`, or the blog's current entity tag
   *   among the tags) and `If-None-Match` (weak comparison: `*` never holds, since the blog
   *   exists; else its current tag not among the tags), against `blogEntityTag`.
   * @returns the blog as stored by the update.
   * @throws NotFoundException (404) when no blog has this id.
   * @throws ForbiddenException (403) when `principal` is neither the owner nor an admin.
   * @throws PreconditionFailedException (412) when a precondition does not hold; nothing changed.
   * @throws InternalServerErrorException (500) when the blog exists, `principal` may update it,
   *   no precondition was given and still no row changed: only something inside the database (a
   *   trigger, a rule) can do that, and answering 200 would report a change that was never stored.
   */
  async update(
    id: number,
    input: BlogInputDto,
    principal: Principal,
    preconditions: UpdatePreconditions = {},
  ): Promise<Blog> {
    const owner = requiredOwner(principal);
    const { ifMatch, ifNoneMatch } = preconditions;
    // `If-None-Match: *` fails for any existing blog: no UPDATE, only the choice of error is left.
    const updated = ifNoneMatch?.any
      ? undefined
      : await this.blogs.update(id, input, owner, {
          match: ifMatch && !ifMatch.any ? versionsNamed(id, ifMatch.tags, 'strong') : undefined,
          noneMatch: ifNoneMatch && !ifNoneMatch.any ? versionsNamed(id, ifNoneMatch.tags, 'weak') : undefined,
        });
    if (updated) return updated;
    const existing = await this.blogs.findById(id);
    if (!existing) throw new NotFoundException(`Blog ${id} not found`);
    if (owner !== undefined && existing.ownerSub !== owner) {
      throw new ForbiddenException('Only the author of this blog may update it');
    }
    if (ifMatch || ifNoneMatch) {
      throw new PreconditionFailedException(
        `Blog ${id} has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag`,
      );
    }
    throw new InternalServerErrorException('The update was not stored');
  }
}
