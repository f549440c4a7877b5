import {
  Body,
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
  UseInterceptors,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { parseEntityTagCondition } from '../common/http/entity-tag-condition';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe';
import { blogEntityTag } from './blog-entity-tag';
import { BlogIdParam } from './blog-id.decorator';
import { BLOG_RESPONSE_FIELDS, parseFieldList } from './blog-list';
import { BLOGS_PATH, nextPageLink } from './blog-paths';
import {
  ApiBlogs,
  ApiCreateBlog,
  ApiDeleteBlog,
  ApiGetBlog,
  ApiListBlogs,
  ApiPatchBlog,
  ApiUpdateBlog,
} from './blogs.api-docs';
import { BlogsService, WritePreconditions } from './blogs.service';
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
    if (page.nextCursor !== null) response.setHeader('Link', nextPageLink(request.url, page.nextCursor));
    return {
      data: page.items.map((blog) => toBlogListItem(blog, fields)),
      total: page.total,
      limit: query.limit,
      offset: page.offset,
      nextCursor: page.nextCursor,
    };
  }

  @Get(':id')
  @ReadAccess()
  @ApiGetBlog()
  async findOne(@BlogIdParam() id: number, @Res({ passthrough: true }) response: Response): Promise<BlogResponse> {
    const blog = await this.blogs.findOne(id);
    response.setHeader('ETag', blogEntityTag(blog));
    return toBlogResponse(blog);
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @UseInterceptors(JsonBodyInterceptor)
  @ApiCreateBlog()
  async create(
    @Body() body: CreateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.create(body, principal.sub);
    response.location(`${BLOGS_PATH}/${blog.id}`);
    response.setHeader('ETag', blogEntityTag(blog));
    return toBlogResponse(blog);
  }

  @Put(':id')
  @UseInterceptors(JsonBodyInterceptor)
  @ApiUpdateBlog()
  async update(
    @BlogIdParam() id: number,
    @Body() body: UpdateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.update(id, body, principal, writePreconditions(ifMatch, ifNoneMatch));
    response.setHeader('ETag', blogEntityTag(blog));
    return toBlogResponse(blog);
  }

  @Patch(':id')
  @UseInterceptors(JsonBodyInterceptor)
  @ApiPatchBlog()
  async patch(
    @BlogIdParam() id: number,
    @Body(NonEmptyBodyPipe) body: PatchBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.update(id, body, principal, writePreconditions(ifMatch, ifNoneMatch));
    response.setHeader('ETag', blogEntityTag(blog));
    return toBlogResponse(blog);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteBlog()
  async remove(
    @BlogIdParam() id: number,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
  ): Promise<void> {
    await this.blogs.remove(id, principal, writePreconditions(ifMatch, ifNoneMatch));
  }
}

/**
 * Parses the `If-Match` / `If-None-Match` values of a write, after its body was validated.
 * @throws BadRequestException (400) naming the header, for a malformed value.
 */
function writePreconditions(ifMatch: string | undefined, ifNoneMatch: string | undefined): WritePreconditions {
  return {
    ifMatch: ifMatch === undefined ? undefined : parseEntityTagCondition('If-Match', ifMatch),
    ifNoneMatch: ifNoneMatch === undefined ? undefined : parseEntityTagCondition('If-None-Match', ifNoneMatch),
  };
}
