import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { parseEntityTagCondition } from '../common/http/entity-tag-condition';
import { blogEntityTag } from './blog-entity-tag';
import { BlogIdParam } from './blog-id.decorator';
import { BLOGS_PATH } from './blog-paths';
import { ApiBlogs, ApiCreateBlog, ApiGetBlog, ApiListBlogs, ApiUpdateBlog } from './blogs.api-docs';
import { BlogsService } from './blogs.service';
import { BlogListResponse, BlogResponse, toBlogResponse } from './dto/blog-response.dto';
import { CreateBlogDto } from './dto/create-blog.dto';
import { ListBlogsQueryDto } from './dto/list-blogs-query.dto';
import { UpdateBlogDto } from './dto/update-blog.dto';

/**
 * `/api/v1/blogs`: reads are public unless `READS_REQUIRE_AUTH=true`, writes need a bearer token.
 * Responses carrying one blog have its strong `ETag`; Express answers a matching `If-None-Match` with 304.
 */
@Controller({ path: 'blogs', version: '1' })
@ApiBlogs()
export class BlogsController {
  constructor(private readonly blogs: BlogsService) {}

  @Get()
  @ReadAccess()
  @ApiListBlogs()
  async list(@Query() query: ListBlogsQueryDto): Promise<BlogListResponse> {
    const page = await this.blogs.list(query.limit, query.offset);
    return { data: page.items.map(toBlogResponse), total: page.total, limit: query.limit, offset: query.offset };
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
  @ApiUpdateBlog()
  async update(
    @BlogIdParam() id: number,
    @Body() body: UpdateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.update(id, body, principal, {
      ifMatch: ifMatch === undefined ? undefined : parseEntityTagCondition('If-Match', ifMatch),
      ifNoneMatch: ifNoneMatch === undefined ? undefined : parseEntityTagCondition('If-None-Match', ifNoneMatch),
    });
    response.setHeader('ETag', blogEntityTag(blog));
    return toBlogResponse(blog);
  }
}
