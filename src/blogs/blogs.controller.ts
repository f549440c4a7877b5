import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
  SecurityRequirementObject,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { parseEntityTagCondition } from '../common/http/entity-tag-condition';
import { blogEntityTag } from './blog-entity-tag';
import { BlogIdParam } from './blog-id.decorator';
import { BlogsService } from './blogs.service';
import { BlogListResponse, BlogResponse, toBlogResponse } from './dto/blog-response.dto';
import { CreateBlogDto } from './dto/create-blog.dto';
import { ListBlogsQueryDto } from './dto/list-blogs-query.dto';
import { UpdateBlogDto } from './dto/update-blog.dto';
import { INT4_MAX } from '../common/canonical-integer';
import { ApiErrorResponses } from '../openapi/api-error-responses.decorator';
import { BEARER_SCHEME } from '../openapi/openapi';

/** Canonical path of the collection; `Location` headers point here. */
export const BLOGS_PATH = '/api/v1/blogs';

const READ_ACCESS_NOTE =
  'No token needed, unless the service runs with `READS_REQUIRE_AUTH=true`: then a bearer token is required ' +
  '(401 without one).';

/** Reads accept no token or a bearer token (OpenAPI: an empty security requirement makes it optional). */
const OPTIONAL_BEARER: SecurityRequirementObject[] = [{}, { [BEARER_SCHEME]: [] }];

const WRITE_CHECKS =
  'Checks run in this order: token (401), id (400), content type (415), body (400), existence (404), ' +
  'ownership (403); body size (413) and malformed JSON (400) are checked while the body is read.';

/** The `ETag` of a response carrying one blog (documentation only). */
const ETAG_HEADER = {
  ETag: {
    description:
      'Strong entity tag of the blog as stored (RFC 9110 §8.8.3); it changes with every update. Send it back in ' +
      '`If-Match` to update only if nobody changed the blog meanwhile, or in `If-None-Match` to skip an unchanged read.',
    schema: { type: 'string', example: '"1-1"' },
  },
} as const;

const PRECONDITION_CHECKS =
  'With `If-Match` / `If-None-Match` (RFC 9110 §13.1), a malformed value is 400 after the body checks, and a ' +
  'precondition that does not hold is 412 after ownership; nothing is changed. Without them the last writer wins.';

const ID_PARAM = {
  name: 'id',
  description: 'The blog id: decimal digits, no sign or leading zero.',
  schema: { type: 'integer', minimum: 1, maximum: INT4_MAX },
  example: 1,
} as const;

/**
 * The four operations of the spec (§4) at `/api/v1/blogs` (the `/api/blogs` and `/v1/blogs`
 * aliases are rewritten to it by the application setup). Reads are public unless
 * `READS_REQUIRE_AUTH=true`; writes need a bearer token.
 *
 * Every response carrying one blog has its strong `ETag` (RFC 9110 §8.8.3). A read whose
 * `If-None-Match` matches it is answered 304 without a body by Express (`res.send` checks
 * `req.fresh` against the `ETag` set here); an update honours `If-Match` and `If-None-Match`
 * (412 when they do not hold). List responses carry no `ETag`.
 */
@Controller({ path: 'blogs', version: '1' })
@ApiTags('blogs')
@ApiExtraModels(BlogResponse)
export class BlogsController {
  constructor(private readonly blogs: BlogsService) {}

  /** `GET /api/v1/blogs?limit=&offset=` → 200 with the list envelope. */
  @Get()
  @ReadAccess()
  @ApiOperation({
    operationId: 'listBlogs',
    summary: 'List blogs, newest first',
    description: READ_ACCESS_NOTE,
    security: OPTIONAL_BEARER,
  })
  @ApiOkResponse({ type: BlogListResponse, description: 'One page of blogs with the total and the effective paging.' })
  @ApiErrorResponses(400, 401, 429, 503)
  async list(@Query() query: ListBlogsQueryDto): Promise<BlogListResponse> {
    const page = await this.blogs.list(query.limit, query.offset);
    return { data: page.items.map(toBlogResponse), total: page.total, limit: query.limit, offset: query.offset };
  }

  /** `GET /api/v1/blogs/:id` → 200 with the blog, 404 when absent. */
  @Get(':id')
  @ReadAccess()
  @ApiOperation({
    operationId: 'getBlog',
    summary: 'Read one blog',
    description: READ_ACCESS_NOTE,
    security: OPTIONAL_BEARER,
  })
  @ApiParam(ID_PARAM)
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description:
      "Entity tags (or `*`); when one matches the blog's current `ETag` (weak comparison) the answer is 304.",
  })
  @ApiOkResponse({ type: BlogResponse, description: 'The blog.', headers: ETAG_HEADER })
  @ApiResponse({ status: 304, description: 'Not Modified: `If-None-Match` matched; no body.', headers: ETAG_HEADER })
  @ApiErrorResponses(400, 401, 404, 429, 503)
  async findOne(@BlogIdParam() id: number, @Res({ passthrough: true }) response: Response): Promise<BlogResponse> {
    const blog = await this.blogs.findOne(id);
    response.setHeader('ETag', blogEntityTag(blog));
    return toBlogResponse(blog);
  }

  /** `POST /api/v1/blogs` → 201 with the blog and `Location: /api/v1/blogs/{id}`. */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    operationId: 'createBlog',
    summary: 'Create a blog',
    description: "The token's `sub` becomes the owner of the blog (who may update it). " + WRITE_CHECKS,
  })
  @ApiBearerAuth(BEARER_SCHEME)
  @ApiBody({ type: CreateBlogDto, description: 'Exactly `title`, `content` and `author`.' })
  @ApiCreatedResponse({
    type: BlogResponse,
    description: 'The blog as stored.',
    headers: {
      Location: {
        description: 'The path of the new blog.',
        schema: { type: 'string', example: `${BLOGS_PATH}/1` },
      },
      ...ETAG_HEADER,
    },
  })
  @ApiErrorResponses(400, 401, 413, 415, 429, 503)
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

  /**
   * `PUT /api/v1/blogs/:id` → 200 with the updated blog; 404 when absent, 403 when not the owner's,
   * 412 when `If-Match` / `If-None-Match` does not hold. A malformed `If-Match` / `If-None-Match`
   * is 400, after the body's checks (the handler runs after the validation pipes).
   */
  @Put(':id')
  @ApiOperation({
    operationId: 'updateBlog',
    summary: 'Replace a blog',
    description:
      'A full replacement of `title`, `content` and `author`. Only the owner (the `sub` that created it) or a token ' +
      'with scope `blogs:admin` may update a blog. `updatedAt` moves forward. ' +
      WRITE_CHECKS +
      ' ' +
      PRECONDITION_CHECKS,
  })
  @ApiBearerAuth(BEARER_SCHEME)
  @ApiParam(ID_PARAM)
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description: "Update only if the blog's current `ETag` is one of these (strong comparison), or it exists (`*`).",
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: "Update only if the blog's current `ETag` is none of these (`*`: never, since the blog exists).",
  })
  @ApiBody({ type: UpdateBlogDto, description: 'Exactly `title`, `content` and `author`.' })
  @ApiOkResponse({ type: BlogResponse, description: 'The blog as stored.', headers: ETAG_HEADER })
  @ApiErrorResponses(400, 401, 403, 404, 412, 413, 415, 429, 503)
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
