import { Body, Controller, Get, HttpCode, HttpStatus, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { BlogIdParam } from './blog-id.decorator';
import { BlogsService } from './blogs.service';
import { BlogListResponse, BlogResponse, toBlogResponse } from './dto/blog-response.dto';
import { CreateBlogDto } from './dto/create-blog.dto';
import { ListBlogsQueryDto } from './dto/list-blogs-query.dto';
import { UpdateBlogDto } from './dto/update-blog.dto';

/** Canonical path of the collection; `Location` headers point here. */
export const BLOGS_PATH = '/api/v1/blogs';

/**
 * The four operations of the spec (§4) at `/api/v1/blogs` (the `/api/blogs` and `/v1/blogs`
 * aliases are rewritten to it by the application setup). Reads are public unless
 * `READS_REQUIRE_AUTH=true`; writes need a bearer token.
 */
@Controller({ path: 'blogs', version: '1' })
export class BlogsController {
  constructor(private readonly blogs: BlogsService) {}

  /** `GET /api/v1/blogs?limit=&offset=` → 200 with the list envelope. */
  @Get()
  @ReadAccess()
  async list(@Query() query: ListBlogsQueryDto): Promise<BlogListResponse> {
    const page = await this.blogs.list(query.limit, query.offset);
    return { data: page.items.map(toBlogResponse), total: page.total, limit: query.limit, offset: query.offset };
  }

  /** `GET /api/v1/blogs/:id` → 200 with the blog, 404 when absent. */
  @Get(':id')
  @ReadAccess()
  async findOne(@BlogIdParam() id: number): Promise<BlogResponse> {
    return toBlogResponse(await this.blogs.findOne(id));
  }

  /** `POST /api/v1/blogs` → 201 with the blog and `Location: /api/v1/blogs/{id}`. */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(
    @Body() body: CreateBlogDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const blog = await this.blogs.create(body, principal.sub);
    response.location(`${BLOGS_PATH}/${blog.id}`);
    return toBlogResponse(blog);
  }

  /** `PUT /api/v1/blogs/:id` → 200 with the updated blog; 404 when absent, 403 when not the owner's. */
  @Put(':id')
  async update(
    @BlogIdParam() id: number,
    @Body() body: UpdateBlogDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<BlogResponse> {
    return toBlogResponse(await this.blogs.update(id, body, principal));
  }
}
