import {
  ForbiddenException,
  HttpException,
  Injectable,
  InternalServerErrorException,
  NotFoundException,
  PreconditionFailedException,
} from '@nestjs/common';
import { BLOGS_ADMIN_SCOPE, Principal } from '../auth/principal';
import type { EntityTagCondition } from '../common/http/entity-tag-condition';
import { versionsNamed } from './blog-entity-tag';
import type { Blog } from './blog.entity';
import { BlogChanges, BlogPage, BlogsRepository, VersionCondition } from './blogs.repository';
import type { BlogInputDto } from './dto/blog-input.dto';

/** The owner a principal's write must match: none for a `blogs:admin` token, else its `sub`. */
export function requiredOwner(principal: Principal): string | undefined {
  return principal.scopes.includes(BLOGS_ADMIN_SCOPE) ? undefined : principal.sub;
}

/** The parsed `If-Match` and `If-None-Match` of a conditional write (RFC 9110 §13.1). */
export interface WritePreconditions {
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
    { ifMatch, ifNoneMatch }: WritePreconditions,
    action: 'update' | 'delete',
  ): Promise<HttpException> {
    const existing = await this.blogs.findById(id);
    if (!existing) return new NotFoundException(`Blog ${id} not found`);
    if (owner !== undefined && existing.ownerSub !== owner) {
      return new ForbiddenException(
        `Only the owner of this blog (the token subject that created it) or a blogs:admin token may ${action} it`,
      );
    }
    if (ifMatch || ifNoneMatch) {
      return new PreconditionFailedException(
        `Blog ${id} has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag`,
      );
    }
    // Only something inside the database (a trigger, a rule) can refuse an allowed, unconditional write.
    return new InternalServerErrorException(
      action === 'update' ? 'The update was not stored' : 'The blog was not deleted',
    );
  }
}

/** The versions of blog `id` a write may change; null when `If-None-Match: *` fails, as for any existing blog. */
function versionCondition(id: number, { ifMatch, ifNoneMatch }: WritePreconditions): VersionCondition | null {
  if (ifNoneMatch?.any) return null;
  return {
    match: ifMatch && !ifMatch.any ? versionsNamed(id, ifMatch.tags, 'strong') : undefined,
    noneMatch: ifNoneMatch && !ifNoneMatch.any ? versionsNamed(id, ifNoneMatch.tags, 'weak') : undefined,
  };
}
