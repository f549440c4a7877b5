import { Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { requireCaller } from '../auth/jwt-auth.guard';
import type { Principal } from '../auth/principal';
import { parseWritePreconditions, PreconditionHeaders, Preconditions } from '../common/http/entity-tag-condition';
import { IdParam } from '../common/http/id-param.decorator';
import { withEntityTag } from '../common/http/origin-freshness';
import { JsonBody } from '../common/http/json-body.decorator';
import { SlugParam } from '../common/http/slug-param.decorator';
import { listEnvelope } from '../common/paging/list-envelope';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe';
import { BLOG_RESPONSE_FIELDS, parseFieldList, parseTagList } from './blog-list';
import { BLOGS_PATH } from './blog-paths';
import { blogEntityTag } from './blog-status';
import type { Blog } from './blog.entity';
import {
  ApiBlogs,
  ApiCreateBlog,
  ApiDeleteBlog,
  ApiGetBlog,
  ApiGetBlogBySlug,
  ApiListBlogs,
  ApiPatchBlog,
  ApiUpdateBlog,
} from './blogs.api-docs';
import { BlogsService, BlogWrite } from './blogs.service';
import { BlogListResponse, BlogResponse, toBlogListItem, toBlogResponse } from './dto/blog-response.dto';
import { CreateBlogDto } from './dto/create-blog.dto';
import { ListBlogsQueryDto } from './dto/list-blogs-query.dto';
import { PatchBlogDto } from './dto/patch-blog.dto';
import { UpdateBlogDto } from './dto/update-blog.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { PublicAnswer, PublicRead } from '../shared-cache/public-read';
import { SharedCache } from '../shared-cache/shared-cache';
import { BLOG_LISTS_KEY, blogKey } from './blog-surrogate-keys';
import { clientAddressOf } from '../rate-limit/rate-limit.guard';

/**
 * `/api/v1/blogs`: reads are public unless `READS_REQUIRE_AUTH=true` (a valid token still shows its owner's drafts
 * and scheduled blogs); writes (POST, PUT, PATCH, DELETE) need a bearer token.
 * Responses carrying one blog have its strong `ETag`; a matching `If-None-Match` is 304 ({@link withEntityTag}).
 */
@Controller({ path: 'blogs', version: '1' })
@ApiBlogs()
export class BlogsController {
  constructor(
    private readonly blogs: BlogsService,
    private readonly cache: SharedCache,
  ) {}

  @Get()
  @ReadAccess()
  @ApiListBlogs()
  async list(
    @Query() query: ListBlogsQueryDto,
    @CurrentPrincipal() principal: Principal | undefined,
    @PublicRead() answer: PublicAnswer,
  ): Promise<BlogListResponse> {
    const now = new Date();
    const fields = (query.fields === undefined ? undefined : parseFieldList(query.fields)) ?? BLOG_RESPONSE_FIELDS;
    const tag = query.tag === undefined ? undefined : parseTagList(query.tag);
    // Lists other than the public one need the caller: a token refused on the way is that refusal, not "no token".
    const caller = query.status === 'published' ? principal : requireCaller(principal, answer.request);
    const client = clientAddressOf(answer.request);
    const page = await this.blogs.list({ ...query, tag, withContent: fields.includes('content'), client }, caller, now);
    answer.linkNext(BLOGS_PATH, page.nextCursor).keep(BLOG_LISTS_KEY);
    return listEnvelope(page, query.limit, (blog) => toBlogListItem(blog, now, fields));
  }

  @Get('slug/:slug')
  @ReadAccess()
  @ApiGetBlogBySlug()
  async findBySlug(
    @SlugParam('slug') slug: string,
    @CurrentPrincipal() principal: Principal | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse | undefined> {
    const now = new Date();
    const { blog, moved } = await this.blogs.findBySlug(slug, principal, now);
    if (!moved) {
      this.cache.keep(request, response, blogKey(blog.id));
      return this.answer(blog, now, response);
    }
    // The current slug's path under the prefix the request came by (`/api/blogs/…` stays an alias).
    const path = request.originalUrl.split('?')[0].replace(/[^/]+\/?$/, blog.slug);
    // Not to be stored (RFC 9111: a 301 is cacheable by default): another blog may take the slug, or it may move again.
    response.status(HttpStatus.MOVED_PERMANENTLY).location(path).setHeader('Cache-Control', 'no-cache');
    response.end();
    return undefined;
  }

  @Get(':id')
  @ReadAccess()
  @ApiGetBlog()
  async findOne(
    @IdParam('id') id: number,
    @CurrentPrincipal() principal: Principal | undefined,
    @PublicRead() answer: PublicAnswer,
  ): Promise<BlogResponse> {
    const now = new Date();
    const blog = await this.blogs.findOne(id, principal, now);
    return this.answer(blog, now, answer.keep(blogKey(id)).response);
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @Idempotent()
  @ApiCreateBlog()
  async create(
    @JsonBody() body: CreateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const now = new Date();
    const blog = await this.blogs.create(body, principal.sub, now);
    response.location(`${BLOGS_PATH}/${blog.id}`);
    return this.answer(blog, now, response);
  }

  @Put(':id')
  @ApiUpdateBlog()
  update(
    @IdParam('id') id: number,
    @JsonBody() body: UpdateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Preconditions() preconditions: PreconditionHeaders,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    return this.write(id, body, principal, preconditions, response);
  }

  @Patch(':id')
  @Idempotent()
  @ApiPatchBlog()
  patch(
    @IdParam('id') id: number,
    @JsonBody(NonEmptyBodyPipe) body: PatchBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Preconditions() preconditions: PreconditionHeaders,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    return this.write(id, body, principal, preconditions, response);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteBlog()
  async remove(
    @IdParam('id') id: number,
    @CurrentPrincipal() principal: Principal,
    @Preconditions() preconditions: PreconditionHeaders,
  ): Promise<void> {
    await this.blogs.remove(id, principal, new Date(), parseWritePreconditions(preconditions));
  }

  /** PUT and PATCH: applies `input` (all text fields, or some) under the preconditions; answers the blog. */
  private async write(
    id: number,
    input: BlogWrite,
    principal: Principal,
    preconditions: PreconditionHeaders,
    response: Response,
  ): Promise<BlogResponse> {
    const now = new Date();
    const written = await this.blogs.update(id, input, principal, now, parseWritePreconditions(preconditions));
    return this.answer(written, now, response);
  }

  /** One blog as answered at `now`, with its `ETag` (a matching `If-None-Match`: 304). */
  private answer(blog: Blog, now: Date, response: Response): BlogResponse {
    return withEntityTag(response, blogEntityTag(blog, now), toBlogResponse(blog, now));
  }
}
