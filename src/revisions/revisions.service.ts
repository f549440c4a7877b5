import { Inject, Injectable, OnApplicationBootstrap, PreconditionFailedException } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { Principal } from '../auth/principal';
import { requiredOwner } from '../auth/required-owner';
import { blogEntityTag, blogState } from '../blogs/blog-status';
import { BLOG_WORDING, BlogAccess, BlogVisibility } from '../blogs/blog-visibility';
import type { Blog } from '../blogs/blog.entity';
import { BLOGS_ADMIN_SCOPE } from '../blogs/blogs.constants';
import { BlogsService } from '../blogs/blogs.service';
import type { WritePreconditions } from '../common/http/entity-tag-condition';
import { meetsVersionCondition, versionCondition } from '../common/http/versioned-entity-tag';
import { notFound, notOwner, preconditionFailed, ResourceWording } from '../common/http/write-refusal';
import type { ListPage } from '../common/paging/list-envelope';
import { PAGING } from '../common/paging/paging-query';
import { revisionsConfig } from '../config/revisions.config';
import { REVISION_SORT, RevisionListCursors } from './revision-list-cursor';
import { FullRevision, Revision, RevisionsRepository } from './revisions.repository';

/** How errors name a revision: `Revision 3 of blog 7 not found`. */
const REVISION: ResourceWording = { title: 'Revision', noun: 'revision', adminScope: BLOGS_ADMIN_SCOPE };

/** How many times a restore without preconditions reads and writes before it writes whatever the blog's version. */
const RESTORE_ATTEMPTS = 3;

/** A page request of a blog's revisions: `offset` or `cursor`, never both. */
export interface RevisionListRequest {
  readonly limit: number;
  readonly offset?: number;
  readonly cursor?: string;
}

/**
 * The rules of revisions: only who may read the blog and write it (its owner, `blogs:admin`) sees them; the newest
 * `REVISIONS_KEPT` are kept; a restore is the blogs' own update.
 */
@Injectable()
export class RevisionsService implements OnApplicationBootstrap {
  private readonly kept: number;

  constructor(
    private readonly revisions: RevisionsRepository,
    private readonly cursors: RevisionListCursors,
    private readonly visibility: BlogVisibility,
    private readonly blogs: BlogsService,
    @Inject(revisionsConfig.KEY) config: ConfigType<typeof revisionsConfig>,
  ) {
    this.kept = config.kept;
  }

  /** Tells the database's triggers how many revisions to keep. */
  async onApplicationBootstrap(): Promise<void> {
    await this.revisions.setKept(this.kept);
  }

  /**
   * A page of blog `blogId`'s kept revisions, newest first, with their exact total; `nextCursor` when more follow.
   * @throws BadRequestException naming `cursor` when it does not continue this blog's revisions; NotFoundException,
   *   ForbiddenException as {@link checkAccess}.
   */
  async list(
    blogId: number,
    request: RevisionListRequest,
    principal: Principal,
    now: Date,
  ): Promise<ListPage<Revision>> {
    const { limit, cursor } = request;
    const after = cursor === undefined ? undefined : this.cursors.decode(cursor, REVISION_SORT, { blogId });
    const offset = after === undefined ? (request.offset ?? PAGING.defaultOffset) : 0;
    const page = await this.revisions.findPage(blogId, this.kept, { limit, offset, after });
    this.checkAccess(blogId, page.blog, principal, now);
    const last = page.items.at(-1);
    return {
      items: page.items,
      total: page.total,
      offset: after === undefined ? offset : null,
      nextCursor: page.more && last ? this.cursors.encode(REVISION_SORT, { blogId }, { version: last.version }) : null,
    };
  }

  /**
   * Revision `version` of blog `blogId`.
   * @throws NotFoundException, ForbiddenException as {@link checkAccess}; NotFoundException when the revision is not
   *   kept.
   */
  async findOne(blogId: number, version: number, principal: Principal, now: Date): Promise<FullRevision> {
    const found = await this.revisions.findOne(blogId, version, this.kept);
    this.checkAccess(blogId, found.blog, principal, now);
    if (found.revision === null) throw revisionNotFound(blogId, version);
    return found.revision;
  }

  /**
   * Sets blog `blogId`'s title, content, author and tags to revision `version`'s through the blogs' update (a new
   * version and revision, `blog.updated`, purges), under `preconditions`; a blog whose text is the revision's already
   * is answered as it is. Without preconditions the update holds only on the version read, and a restore that another
   * write overtook reads again, so that two restores of one revision make one version.
   * @throws NotFoundException, ForbiddenException as {@link checkAccess}; NotFoundException when the revision is not
   *   kept; PreconditionFailedException (412) when `preconditions` do not hold; the update's errors.
   */
  async restore(
    blogId: number,
    version: number,
    principal: Principal,
    now: Date,
    preconditions: WritePreconditions,
  ): Promise<Blog> {
    const conditional = preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined;
    for (let attempt = 1; ; attempt++) {
      const found = await this.revisions.findToRestore(blogId, version, this.kept);
      this.checkAccess(blogId, found.blog, principal, now);
      if (found.revision === null) throw revisionNotFound(blogId, version);
      const read = { id: blogId, publishedAt: found.blog.publishedAt, version: found.blogVersion };
      if (found.current) {
        if (!meetsVersionCondition(versionCondition(blogId, preconditions), blogState(read, now))) {
          throw preconditionFailed(BLOG_WORDING, blogId);
        }
        return this.blogs.findOne(blogId, principal, now, 'primary');
      }
      const { title, content, author, tags } = found.revision;
      const input = { title, content, author, tags: [...tags] };
      if (conditional || attempt === RESTORE_ATTEMPTS) {
        return this.blogs.update(blogId, input, principal, now, preconditions);
      }
      // Without the client's preconditions the update is made on the version read, so that a write that overtook it
      // (a restore of the same revision) is seen: read again, then answer the text as it is or restore it.
      const onRead: WritePreconditions = {
        ifMatch: { any: false, tags: [{ weak: false, opaque: blogEntityTag(read, now) }] },
      };
      try {
        return await this.blogs.update(blogId, input, principal, now, onRead);
      } catch (error) {
        if (!(error instanceof PreconditionFailedException)) throw error;
      }
    }
  }

  /**
   * @throws NotFoundException when no blog has this id or `principal` may not read it at `now` (as a read of the blog
   *   answers); ForbiddenException when it may, but neither owns it nor holds `blogs:admin`.
   */
  private checkAccess(
    blogId: number,
    blog: BlogAccess | null,
    principal: Principal,
    now: Date,
  ): asserts blog is BlogAccess {
    if (blog === null || !this.visibility.mayRead(blog, principal, now)) throw this.visibility.notFound(blogId);
    const owner = requiredOwner(principal, BLOGS_ADMIN_SCOPE);
    if (owner !== undefined && owner !== blog.ownerSub) {
      throw notOwner(BLOG_WORDING, 'read or restore its revisions');
    }
  }
}

/** 404: blog `blogId` keeps no revision `version`. */
const revisionNotFound = (blogId: number, version: number) => notFound(REVISION, `${version} of blog ${blogId}`);
