import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiOkResponse, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { bodyMediaTypes } from '../common/http/json-content-type';
import {
  changedError,
  defineApiErrorResponses,
  notFoundError,
  notOwnerError,
} from '../openapi/api-error-responses.decorator';
import {
  ApiCreatedAt,
  ApiDeleteById,
  ApiListPage,
  ApiPublicOperation,
  ApiReadById,
  ApiTokenOperation,
} from '../openapi/operations';
import {
  ApiConditionalRead,
  ApiPreconditionHeaders,
  entityTagHeader,
  PRECONDITION_CHECKS,
} from '../openapi/conditional-request';
import { ApiIdParam } from '../openapi/id-param';
import { publicReadHeaders, READ_ACCESS_NOTE } from '../openapi/read-access';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../common/text/slug';
import { BLOGS_PATH } from './blog-paths';
import { BLOG_WORDING } from './blog-visibility';
import { BlogListResponse, BlogResponse } from './dto/blog-response.dto';
import { CreateBlogDto } from './dto/create-blog.dto';
import { PatchBlogDto } from './dto/patch-blog.dto';
import { UpdateBlogDto } from './dto/update-blog.dto';

/** The error answers of the blog operations: the shared ones and the blogs' 403, 404 and 412. */
const ApiErrorResponses = defineApiErrorResponses({
  403: notOwnerError(
    BLOG_WORDING,
    'update it',
    'The token is valid but its subject may not do this: the blog is published and another subject owns it (a ' +
      'draft or scheduled blog the caller may not see is 404).',
  ),
  404: notFoundError(
    BLOG_WORDING,
    42,
    'No blog has this id (or slug), or it is a draft or scheduled and the caller is neither its owner nor admin.',
  ),
  409: {
    description: "The `slug` is another blog's current slug. Nothing was changed.",
    example: "slug is another blog's slug: choose another one",
    problemType: 'slug-taken',
  },
  412: changedError(BLOG_WORDING, 7),
});

/** The read-access note, and who sees drafts and scheduled blogs. */
const BLOG_READ_NOTE =
  `${READ_ACCESS_NOTE} Drafts and scheduled blogs are seen only with a token of their owner or a \`blogs:admin\` ` +
  'token; an invalid token counts as none.';

const WHILE_READING = 'body size (413) and malformed JSON (400) are checked while the body is read.';

const ETAG_HEADER = entityTagHeader(
  'blog as stored',
  'it changes with every update, and when a scheduled blog goes live. Send it back in `If-Match` to update only if ' +
    'nobody changed the blog meanwhile, or in `If-None-Match` to skip an unchanged read',
  '"1-1"',
);

const READ_HEADERS = publicReadHeaders('blog-1');

/**
 * The bodies Swagger UI fills in: the blog the path examples name (id 1, slug `hello`, tags `nestjs` and `databases`
 * on a fresh database), published at once; docs/api.md, "Trying the API in Swagger UI".
 */
const BLOG_EXAMPLE = { title: 'Hello', content: 'First post', author: 'Alice', tags: ['NestJS', 'Databases'] };
const CREATE_EXAMPLES = { blog: { summary: 'A blog, published at once, with two tags', value: BLOG_EXAMPLE } };
const UPDATE_EXAMPLES = {
  blog: {
    summary: 'New text, the same title, author and tags',
    value: { ...BLOG_EXAMPLE, content: 'First post, revised' },
  },
};
const PATCH_EXAMPLES = { content: { summary: 'New text only', value: { content: 'First post, revised' } } };

/** OpenAPI of the blogs controller as a whole, with the errors every operation answers (each adds its own). */
export const ApiBlogs = (): ClassDecorator =>
  applyDecorators(ApiErrorResponses(400, 401, 429, 503), ApiTags('blogs'), ApiExtraModels(BlogResponse));

/** OpenAPI of `GET /api/v1/blogs`. */
export const ApiListBlogs = (): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: 'listBlogs',
      summary: 'List, filter and search blogs, newest first by default',
      description:
        'Filters combine with AND; `total` counts every blog they match. A page starts after `offset` blogs, or ' +
        'after the last blog of an earlier page when its `nextCursor` is sent as `cursor` (keyset paging: stable ' +
        'while blogs are created). Every parameter at most once; an unknown or repeated parameter, a bad value, a `q` ' +
        'without a word, `cursor` with `offset`, or a cursor not made by this service for the same filters and ' +
        `\`sort\` is 400 naming the parameter. ${BLOG_READ_NOTE}`,
    }),
    ApiListPage(
      BlogListResponse,
      'blogs',
      'blogs',
      `<${BLOGS_PATH}?limit=10&cursor=eyJ2IjoxfQ.c2lnbmF0dXJl>; rel="next"`,
    ),
  );

/** OpenAPI of `GET /api/v1/blogs/:id`. */
export const ApiGetBlog = (): MethodDecorator =>
  applyDecorators(
    ApiReadById(
      { operationId: 'getBlog', summary: 'Read one blog', description: BLOG_READ_NOTE },
      'blog',
      BlogResponse,
      {
        ...ETAG_HEADER,
        ...READ_HEADERS,
      },
    ),
    ApiErrorResponses(404),
  );

/** OpenAPI of `GET /api/v1/blogs/slug/:slug`. */
export const ApiGetBlogBySlug = (): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: 'getBlogBySlug',
      summary: 'Read one blog by its slug',
      description:
        'The same answer, headers and visibility as reading by id. A slug the blog had before answers 301 with ' +
        `\`Location\` set to its current slug's path (to those who may see the blog). ${BLOG_READ_NOTE}`,
    }),
    ApiParam({
      name: 'slug',
      description: 'A slug: lower-case letters a-z and digits in runs joined by single `-`, at most 200 characters.',
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: SLUG_MAX_LENGTH,
        pattern: SLUG_PATTERN.source,
        example: 'hello',
      },
    }),
    ApiConditionalRead(BlogResponse, 'blog', { ...ETAG_HEADER, ...READ_HEADERS }),
    ApiResponse({
      status: 301,
      description: 'Moved Permanently: the slug is an earlier one of the blog; `Location` is its current path.',
      headers: {
        Location: {
          description: 'The path of the current slug.',
          schema: { type: 'string', example: '/api/v1/blogs/slug/hello-world' },
        },
        'Cache-Control': {
          description: '`no-cache`: the redirect ends when another blog takes the slug or the blog moves again.',
          schema: { type: 'string', example: 'no-cache' },
        },
      },
    }),
    ApiErrorResponses(404),
  );

/** OpenAPI of `POST /api/v1/blogs`. */
export const ApiCreateBlog = (): MethodDecorator =>
  applyDecorators(
    ApiTokenOperation({
      operationId: 'createBlog',
      summary: 'Create a blog',
      description:
        "The token's `sub` becomes the owner of the blog (who may update it). Checks run in this order: token (401), " +
        `content type (415), body (400); ${WHILE_READING}`,
    }),
    ApiBody({
      type: CreateBlogDto,
      description:
        '`title`, `content` and `author` (required), optionally `status`, `publishedAt`, `slug` and `tags`; any other property is 400.',
      examples: CREATE_EXAMPLES,
    }),
    ApiCreatedAt(BlogResponse, 'blog', `${BLOGS_PATH}/1`, ETAG_HEADER),
    ApiErrorResponses(409, 413, 415),
  );

const WHO_MAY_WRITE = 'Only the owner (the `sub` that created it) or a token with scope `blogs:admin` may';

/** OpenAPI of `PUT /api/v1/blogs/:id`. */
export const ApiUpdateBlog = (): MethodDecorator =>
  applyDecorators(
    ApiTokenOperation({
      operationId: 'updateBlog',
      summary: 'Replace a blog',
      description:
        'A full replacement of `title`, `content` and `author`; `status`, `publishedAt`, `slug` and `tags` keep ' +
        'their stored values when not sent. ' +
        `${WHO_MAY_WRITE} update a blog. ` +
        '`updatedAt` moves forward. Checks run in this order: token (401), ' +
        `id (400), content type (415), body (400), existence and visibility (404), ownership (403); ${WHILE_READING} ` +
        PRECONDITION_CHECKS,
    }),
    ApiIdParam('blog'),
    ApiPreconditionHeaders('Update', 'blog'),
    ApiBody({
      type: UpdateBlogDto,
      description:
        '`title`, `content` and `author` (required), optionally `status`, `publishedAt`, `slug` and `tags`; any other property is 400.',
      examples: UPDATE_EXAMPLES,
    }),
    ApiOkResponse({ type: BlogResponse, description: 'The blog as stored.', headers: ETAG_HEADER }),
    ApiErrorResponses(403, 404, 409, 412, 413, 415),
  );

/** OpenAPI of `PATCH /api/v1/blogs/:id`. */
export const ApiPatchBlog = (): MethodDecorator =>
  applyDecorators(
    ApiTokenOperation({
      operationId: 'patchBlog',
      summary: 'Change some fields of a blog',
      description:
        'A JSON Merge Patch (RFC 7396) of `title`, `content`, `author`, `status`, `publishedAt`, `slug` and `tags`: ' +
        'the fields given are set, the others keep their values; `null` (which would remove a field) is 400, except ' +
        '`publishedAt: null` with `status: "draft"`. ' +
        `${WHO_MAY_WRITE} change a blog. ` +
        '`updatedAt` moves forward. Checks run in this order: token (401), ' +
        `id (400), content type (415), body (400), existence and visibility (404), ownership (403); ${WHILE_READING} ` +
        PRECONDITION_CHECKS,
    }),
    ApiIdParam('blog'),
    ApiPreconditionHeaders('Change', 'blog'),
    ApiConsumes(...bodyMediaTypes('PATCH')),
    ApiBody({
      type: PatchBlogDto,
      description:
        'At least one of `title`, `content`, `author`, `status`, `publishedAt`, `slug` and `tags`, nothing else.',
      examples: PATCH_EXAMPLES,
    }),
    ApiOkResponse({
      type: BlogResponse,
      description: 'The whole blog as stored.',
      headers: {
        ...ETAG_HEADER,
        'Accept-Patch': {
          description: 'The patch media types this resource accepts (RFC 5789 §3.1).',
          schema: { type: 'string', example: bodyMediaTypes('PATCH').join(', ') },
        },
      },
    }),
    ApiErrorResponses(403, 404, 409, 412, 413, 415),
  );

/** OpenAPI of `DELETE /api/v1/blogs/:id`. */
export const ApiDeleteBlog = (): MethodDecorator =>
  applyDecorators(
    ApiDeleteById(
      {
        operationId: 'deleteBlog',
        summary: 'Delete a blog',
        description:
          `${WHO_MAY_WRITE} delete a blog; afterwards it reads 404 and no list holds it. A request body is not read. ` +
          'Checks run in this order: token (401), id (400), existence and visibility (404), ownership (403). With `If-Match` / ' +
          '`If-None-Match` (RFC 9110 §13.1), a malformed value is 400 after the id check, and a precondition that ' +
          'does not hold is 412 after ownership; nothing is deleted.',
      },
      'blog',
      { preconditions: true },
    ),
    ApiErrorResponses(403, 404, 412),
  );
