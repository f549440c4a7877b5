import { Injectable } from '@nestjs/common';
import { BearerTokenException } from '../auth/bearer-token.exception';
import type { Principal } from '../auth/principal';
import { requiredOwner } from '../auth/required-owner';
import type { WritePreconditions } from '../common/http/entity-tag-condition';
import { versionCondition } from '../common/http/versioned-entity-tag';
import { conditionalWrite } from '../common/http/conditional-write';
import type { ListPage } from '../common/paging/list-envelope';
import { slugOf } from '../common/text/slug';
import { TagsService } from '../tags/tags.service';
import { BlogFilters, BlogListPosition, BlogSort, DEFAULT_BLOG_SORT, MAX_SEARCH_TERMS, sortOrder } from './blog-list';
import { BlogListCursors } from './blog-list-cursor';
import { BlogListStatus, blogState } from './blog-status';
import { BLOG_WORDING, BlogVisibility } from './blog-visibility';
import type { Blog } from './blog.entity';
import { BLOGS_ADMIN_SCOPE } from './blogs.constants';
import { BlogsRepository, SlugTakenError } from './blogs.repository';
import type { BlogInputDto } from './dto/blog-input.dto';
import { publicationOnUpdate, publishedAtOnCreate, requirementMessage } from './publication';
import { SlugTakenException, ValidationProblemException } from '../common/filters/problem-types';

/** The slug of a blog whose title has no letter or digit. */
const FALLBACK_SLUG = 'blog';

/** The owner a principal's write of a blog must match: none for a `blogs:admin` token, else its `sub`. */
const blogOwner = (principal: Principal): string | undefined => requiredOwner(principal, BLOGS_ADMIN_SCOPE);

/** The filters `request` gives, without the unset ones. */
function filtersOf(request: BlogFilters): BlogFilters {
  const { author, q, createdAfter, createdBefore, updatedAfter, tag } = request;
  const given = { author, q, createdAfter, createdBefore, updatedAfter, tag };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
}

/**
 * The search's bound: at least one term, at most {@link MAX_SEARCH_TERMS}, none twice (docs/api.md, "Search").
 * @throws ValidationProblemException (400) naming `q` otherwise.
 */
function checkSearchTerms(terms: readonly string[]): void {
  if (terms.length === 0) {
    throw ValidationProblemException.parameter(
      'q',
      'q must contain at least one word to search for (letters or digits, not only punctuation or operators)',
      true,
    );
  }
  if (terms.length > MAX_SEARCH_TERMS) {
    throw ValidationProblemException.parameter(
      'q',
      `q must contain at most ${MAX_SEARCH_TERMS} words to search for`,
      true,
    );
  }
  if (new Set(terms).size < terms.length) {
    throw ValidationProblemException.parameter('q', 'q must not contain a word to search for more than once', true);
  }
}

/** Where the page after `blog` starts in the order `sort`. */
function positionAfter(blog: Blog, sort: BlogSort): BlogListPosition {
  const { field } = sortOrder(sort);
  return field === 'id' ? { id: blog.id } : { id: blog.id, value: blog[field] };
}

/** A list request: filters, status, order, and where the page starts (`offset`, or `cursor`, never both). */
export interface BlogListRequest extends BlogFilters {
  readonly limit: number;
  readonly offset?: number;
  readonly sort: BlogSort;
  readonly cursor?: string;
  readonly status: BlogListStatus;
  /** Whether the blogs need their `content` (the one large field). */
  readonly withContent: boolean;
  /** Who asks (its client address): a filtered list waits within its share of the slow lane. */
  readonly client?: string;
}

/** What a write of a blog asks for: the text fields (all three on create and PUT) and the optional publishing ones. */
export type BlogWrite = Partial<BlogInputDto>;

/** A blog found by a slug, and whether the slug is an earlier one (to be redirected to `blog.slug`). */
export interface BlogBySlug {
  readonly blog: Blog;
  readonly moved: boolean;
}

/** The rules of the blog resource: list, visibility, publishing, slugs, existence, ownership and preconditions. */
@Injectable()
export class BlogsService {
  constructor(
    private readonly blogs: BlogsRepository,
    private readonly cursors: BlogListCursors,
    private readonly tags: TagsService,
    private readonly visibility: BlogVisibility,
  ) {}

  /**
   * A page of the blogs matching the filters and `status` at `now` in the requested order, with their exact total;
   * an offset past the end gives an empty page. `nextCursor` is set when more matching blogs follow. A status other
   * than `published` lists the caller's own blogs, every owner's for `blogs:admin`.
   * @throws BearerTokenException (401) for a status other than `published` without a principal;
   *   BadRequestException naming `q` when it has no word to search for, more than {@link MAX_SEARCH_TERMS} or a term
   *   twice, or naming `cursor` when it does not continue this list.
   */
  async list(request: BlogListRequest, principal: Principal | undefined, now: Date): Promise<ListPage<Blog>> {
    const { limit, sort, withContent, status, client } = request;
    if (status !== 'published' && principal === undefined) throw BearerTokenException.missing();
    const owner = status === 'published' || principal === undefined ? undefined : blogOwner(principal);
    const filters = filtersOf(request);
    if (filters.q !== undefined) checkSearchTerms(await this.blogs.searchTerms(filters.q));
    const selection = { ...filters, status };
    const unfiltered = Object.keys(filters).length === 0 && status === 'published';
    return this.cursors.page(
      request,
      sort,
      selection,
      ({ offset, after }) =>
        // The hot path: the newest-first offset list has its own statement (docs/architecture.md, "The page query").
        unfiltered && sort === DEFAULT_BLOG_SORT && after === undefined
          ? this.blogs.findPage(limit, offset, now).then((found) => ({
              ...found,
              totalRelation: 'eq' as const,
              more: offset + found.items.length < found.total,
            }))
          : this.blogs.findList({ filters, sort, limit, offset, after, withContent, status, owner, now }, client),
      (blog) => positionAfter(blog, sort),
    );
  }

  /**
   * The blog, read from `source`.
   * @throws NotFoundException when no blog has this id, or `principal` may not see it at `now`.
   */
  async findOne(
    id: number,
    principal: Principal | undefined,
    now: Date,
    source: 'replica' | 'primary' = 'replica',
  ): Promise<Blog> {
    return this.visibility.readable(await this.blogs.findById(id, source), id, principal, now);
  }

  /** @throws NotFoundException when no blog has or had this slug, or `principal` may not see it at `now`. */
  async findBySlug(slug: string, principal: Principal | undefined, now: Date): Promise<BlogBySlug> {
    const blog = this.visibility.readable(await this.blogs.findBySlug(slug), slug, principal, now);
    return { blog, moved: blog.slug !== slug };
  }

  /**
   * Stores a new blog owned by `ownerSub`: published at `now` unless the input says otherwise, with its slug or the
   * lowest free one made from the title, and its tags.
   * @throws BadRequestException naming `publishedAt` for broken publishing rules, or `tags` for a name without a
   *   letter or digit; ConflictException (409) when the slug is another blog's.
   */
  async create(input: BlogInputDto, ownerSub: string, now: Date): Promise<Blog> {
    const publishedAt = publishedAtOnCreate(input, now);
    const tags = this.tags.normalize(input.tags ?? []);
    const slug =
      input.slug === undefined
        ? { value: slugOf(input.title) ?? FALLBACK_SLUG, explicit: false }
        : { value: input.slug, explicit: true };
    const { title, content, author } = input;
    return this.withSlugConflict(() =>
      this.blogs.insert({ title, content, author, ownerSub, publishedAt, slug, tags }),
    );
  }

  /**
   * Applies `input` (all text fields on PUT, some on PATCH; publishing fields and slug when given) in one statement
   * that also checks ownership, the preconditions and what the publishing rules require of the stored blog; only
   * when it changed nothing is the blog read again to choose the error.
   * @throws BadRequestException naming `publishedAt` or `tags`, NotFoundException (404, also for a blog `principal`
   *   may not see), ForbiddenException (403),
   *   PreconditionFailedException (412), BadRequestException (400) for a rule on the stored blog, ConflictException
   *   (409) for a taken slug, in that order.
   */
  async update(
    id: number,
    input: BlogWrite,
    principal: Principal,
    now: Date,
    preconditions: WritePreconditions = {},
  ): Promise<Blog> {
    const publication = publicationOnUpdate(input, now);
    const tags = input.tags === undefined ? undefined : this.tags.normalize(input.tags);
    const { title, content, author, slug } = input;
    const owner = blogOwner(principal);
    const versions = versionCondition(id, preconditions);
    return conditionalWrite({
      ...this.refusalOf(id, principal, now, preconditions),
      owner,
      versions,
      action: 'update',
      write: (versions) =>
        this.withSlugConflict(() =>
          this.blogs.update(id, { title, content, author, slug, publication, tags }, { owner, versions, now }),
        ),
      ownRefusal: () =>
        publication.requirement
          ? ValidationProblemException.body('/publishedAt', requirementMessage(publication.requirement), true)
          : undefined,
    });
  }

  /**
   * Deletes the blog in one statement that also checks ownership and the preconditions; only when it
   * deleted nothing is the blog read again to choose the error.
   * @throws NotFoundException (404, also for a blog `principal` may not see), ForbiddenException (403),
   *   PreconditionFailedException (412), in that order.
   */
  async remove(id: number, principal: Principal, now: Date, preconditions: WritePreconditions = {}): Promise<void> {
    const owner = blogOwner(principal);
    const versions = versionCondition(id, preconditions);
    await conditionalWrite({
      ...this.refusalOf(id, principal, now, preconditions),
      owner,
      versions,
      action: 'delete',
      write: (versions) => this.blogs.delete(id, { owner, versions, now }),
    });
  }

  /** A write's slug refusal as 409 naming `slug`. */
  private async withSlugConflict<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof SlugTakenError) {
        throw new SlugTakenException("slug is another blog's slug: choose another one", { cause: error });
      }
      throw error;
    }
  }

  /**
   * What a refused write of blog `id` reads again, as it stands now (on the primary: a replica may not have the write
   * that made this one fail yet): a blog `principal` may not see is gone, as a read would answer.
   */
  private refusalOf(id: number, principal: Principal, now: Date, preconditions: WritePreconditions) {
    return {
      wording: BLOG_WORDING,
      id,
      conditional: preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined,
      current: async () => {
        const blog = await this.blogs.findById(id, 'primary');
        return blog && this.visibility.mayRead(blog, principal, now)
          ? { ownerSub: blog.ownerSub, state: blogState(blog, now) }
          : null;
      },
    };
  }
}
