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

/** The owner a principal's write must match: none for a `blogs:admin` token, else its `sub`. */
export function requiredOwner(principal: Principal): string | undefined {
  return principal.scopes.includes(BLOGS_ADMIN_SCOPE) ? undefined : principal.sub;
}

/** The parsed `If-Match` and `If-None-Match` of a conditional update (RFC 9110 §13.1). */
export interface UpdatePreconditions {
  readonly ifMatch?: EntityTagCondition;
  readonly ifNoneMatch?: EntityTagCondition;
}

/** The rules of the blog resource: paging order, existence, ownership and preconditions. */
@Injectable()
export class BlogsService {
  constructor(private readonly blogs: BlogsRepository) {}

  /** A page of blogs, newest first, and the exact total; an offset past the end gives an empty page. */
  list(limit: number, offset: number): Promise<BlogPage> {
    return this.blogs.findPage(limit, offset);
  }

  /** @throws NotFoundException when no blog has this id. */
  async findOne(id: number): Promise<Blog> {
    const blog = await this.blogs.findById(id);
    if (!blog) throw new NotFoundException(`Blog ${id} not found`);
    return blog;
  }

  /** Stores a new blog owned by `ownerSub`. */
  create(input: BlogInputDto, ownerSub: string): Promise<Blog> {
    return this.blogs.insert(input, ownerSub);
  }

  /**
   * Replaces title, content and author in one statement that also checks ownership and the
   * preconditions; only when it changed nothing is the blog read again to choose the error.
   * @throws NotFoundException (404), ForbiddenException (403), PreconditionFailedException (412), in that order.
   */
  async update(
    id: number,
    input: BlogInputDto,
    principal: Principal,
    preconditions: UpdatePreconditions = {},
  ): Promise<Blog> {
    const owner = requiredOwner(principal);
    const { ifMatch, ifNoneMatch } = preconditions;
    // `If-None-Match: *` fails for any existing blog: only the choice of error is left.
    const updated = ifNoneMatch?.any
      ? null
      : await this.blogs.update(id, input, owner, {
          match: ifMatch && !ifMatch.any ? versionsNamed(id, ifMatch.tags, 'strong') : undefined,
          noneMatch: ifNoneMatch && !ifNoneMatch.any ? versionsNamed(id, ifNoneMatch.tags, 'weak') : undefined,
        });
    if (updated) return updated;
    const existing = await this.blogs.findById(id);
    if (!existing) throw new NotFoundException(`Blog ${id} not found`);
    if (owner !== undefined && existing.ownerSub !== owner) {
      throw new ForbiddenException(
        'Only the owner of this blog (the token subject that created it) or a blogs:admin token may update it',
      );
    }
    if (ifMatch || ifNoneMatch) {
      throw new PreconditionFailedException(
        `Blog ${id} has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag`,
      );
    }
    // Only something inside the database (a trigger, a rule) can refuse an allowed, unconditional update.
    throw new InternalServerErrorException('The update was not stored');
  }
}
