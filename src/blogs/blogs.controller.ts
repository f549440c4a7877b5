import {
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  HttpStatus,
  Patch,
  Post,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { parseWritePreconditions } from '../common/http/entity-tag-condition';
import { IdParam } from '../common/http/id-param.decorator';
import { JsonBody } from '../common/http/json-body.decorator';
import { versionedEntityTag } from '../common/http/versioned-entity-tag';
import { linkNextPage, listEnvelope } from '../common/paging/list-envelope';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe';
import { BLOG_RESPONSE_FIELDS, parseFieldList } from './blog-list';
import { BLOGS_PATH } from './blog-paths';
import {
  ApiBlogs,
  ApiCreateBlog,
  ApiDeleteBlog,
  ApiGetBlog,
  ApiListBlogs,
  ApiPatchBlog,
  ApiUpdateBlog,
} from './blogs.api-docs';
import { BlogChanges } from './blogs.repository';
import { BlogsService } from './blogs.service';
import { BlogListResponse, BlogResponse, toBlogListItem, toBlogResponse } from './dto/blog-response.dto';
import { CreateBlogDto } from './dto/create-blog.dto';
import { ListBlogsQueryDto } from './dto/list-blogs-query.dto';
import { PatchBlogDto } from './dto/patch-blog.dto';
import { UpdateBlogDto } from './dto/update-blog.dto';

/**
 * `/api/v1/blogs`: reads are public unless `READS_REQUIRE_AUTH=true`; writes (POST, PUT, PATCH, DELETE) need a
 * bearer token.
 * Responses carrying one blog have its strong `ETag`; Express answers a matching `If-None-Match` with 304.
 */
@Controller({ path: 'blogs', version: '1' })
@ApiBlogs()
export class BlogsController {
  constructor(private readonly blogs: BlogsService) {}

  @Get()
  @ReadAccess()
  @ApiListBlogs()
  async list(
    @Query() query: ListBlogsQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogListResponse> {
    const fields = (query.fields === undefined ? undefined : parseFieldList(query.fields)) ?? BLOG_RESPONSE_FIELDS;
    const page = await this.blogs.list({ ...query, withContent: fields.includes('content') });
    linkNextPage(response, BLOGS_PATH, request.url, page.nextCursor);
    return listEnvelope(page, query.limit, (blog) => toBlogListItem(blog, fields));
  }

  @Get(':id')
  @ReadAccess()
  @ApiGetBlog()
  async findOne(@IdParam('id') id: number, @Res({ passthrough: true }) response: Response): Promise<BlogResponse> {
    const blog = await this.blogs.findOne(id);
    response.setHeader('ETag', versionedEntityTag(blog));
    return toBlogResponse(blog);
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ApiCreateBlog()
  async create(
    @JsonBody() body: CreateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.create(body, principal.sub);
    response.location(`${BLOGS_PATH}/${blog.id}`);
    response.setHeader('ETag', versionedEntityTag(blog));
    return toBlogResponse(blog);
  }

  @Put(':id')
  @ApiUpdateBlog()
  update(
    @IdParam('id') id: number,
    @JsonBody() body: UpdateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    return this.write(id, body, principal, ifMatch, ifNoneMatch, response);
  }

  @Patch(':id')
  @ApiPatchBlog()
  patch(
    @IdParam('id') id: number,
    @JsonBody(NonEmptyBodyPipe) body: PatchBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    return this.write(id, body, principal, ifMatch, ifNoneMatch, response);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteBlog()
  async remove(
    @IdParam('id') id: number,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
  ): Promise<void> {
    await this.blogs.remove(id, principal, parseWritePreconditions(ifMatch, ifNoneMatch));
  }

  /** PUT and PATCH: sets `changes` (all fields, or some) under the preconditions; answers the blog and its new ETag. */
  private async write(
    id: number,
    changes: BlogChanges,
    principal: Principal,
    ifMatch: string | undefined,
    ifNoneMatch: string | undefined,
    response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.update(id, changes, principal, parseWritePreconditions(ifMatch, ifNoneMatch));
    response.setHeader('ETag', versionedEntityTag(blog));
    return toBlogResponse(blog);
  }
}
