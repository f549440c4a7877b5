import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { BLOG_WORDING } from '../blogs/blog-visibility';
import { defineApiErrorResponses, notFoundError, notOwnerError } from '../openapi/api-error-responses.decorator';
import {
  ApiCreatedAt,
  ApiDeleteById,
  ApiListPage,
  ApiReadById,
  ApiReadUnderBlog,
  ApiTokenOperation,
} from '../openapi/operations';
import { entityTagHeader } from '../openapi/conditional-request';
import { ApiIdParam } from '../openapi/id-param';
import { publicReadHeaders, READ_ACCESS_NOTE } from '../openapi/read-access';
import { blogCommentsPath, COMMENTS_PATH } from './comment-paths';
import { COMMENT_WORDING } from './comments.service';
import { CommentListResponse, CommentResponse } from './dto/comment-response.dto';
import { CreateCommentDto } from './dto/create-comment.dto';

/** The error answers of the comment operations: the shared ones and the comments' 403, 404 and 409. */
const ApiErrorResponses = defineApiErrorResponses({
  403: notOwnerError(
    COMMENT_WORDING,
    'delete it',
    "The token is valid but its subject may not delete this comment: it is neither the comment's owner, nor its " +
      "blog's owner, nor `blogs:admin`.",
  ),
  404: notFoundError(
    BLOG_WORDING,
    17,
    'No blog (or comment) has this id, or the caller may not read the blog (a draft or scheduled blog of another ' +
      'owner): the same answer.',
  ),
  409: {
    description: 'The blog is a draft or scheduled (the caller may read it): only a published blog takes comments.',
    example: 'Blog 17 is not published: only a published blog takes comments',
  },
});

/** Who sees a comment. */
const COMMENT_READ_NOTE =
  `${READ_ACCESS_NOTE} A comment is seen by whoever may read its blog: comments of a draft or scheduled blog only ` +
  'with a token of its owner or a `blogs:admin` token; an invalid token counts as none.';

const ETAG_HEADER = entityTagHeader(
  'comment',
  'a comment never changes. Send it in `If-None-Match` to skip an unchanged read',
  '"41-1"',
);

/** OpenAPI of the comments controller as a whole, with the errors every operation answers (each adds its own). */
export const ApiComments = (): ClassDecorator =>
  applyDecorators(ApiErrorResponses(400, 401, 404, 429, 503), ApiTags('comments'), ApiExtraModels(CommentResponse));

/** OpenAPI of `GET /api/v1/blogs/:id/comments`. */
export const ApiListComments = (): MethodDecorator =>
  applyDecorators(
    ApiReadUnderBlog(
      {
        operationId: 'listComments',
        summary: "List a blog's comments, oldest first",
        description:
          "`total` counts all the blog's comments. A page starts after `offset` comments, or after the last comment " +
          'of an earlier page when its `nextCursor` is sent as `cursor` (keyset paging). Every parameter at most once; ' +
          'an unknown or repeated parameter, a bad value, `cursor` with `offset`, or a cursor not made by this service ' +
          "for this blog's comments is 400 naming the parameter. Checks run in this order: id and query (400), the " +
          `blog (404). ${COMMENT_READ_NOTE}`,
      },
      ApiListPage(
        CommentListResponse,
        'comments',
        'comments-1',
        `<${blogCommentsPath(17)}?limit=10&cursor=eyJ2IjoxfQ.c2lnbmF0dXJl>; rel="next"`,
      ),
    ),
  );

/** OpenAPI of `GET /api/v1/comments/:id`. */
export const ApiGetComment = (): MethodDecorator =>
  applyDecorators(
    ApiReadById(
      { operationId: 'getComment', summary: 'Read one comment', description: COMMENT_READ_NOTE },
      'comment',
      CommentResponse,
      { ...ETAG_HEADER, ...publicReadHeaders('comment-41 comments-1') },
    ),
  );

/** OpenAPI of `POST /api/v1/blogs/:id/comments`. */
export const ApiCreateComment = (): MethodDecorator =>
  applyDecorators(
    ApiTokenOperation({
      operationId: 'createComment',
      summary: 'Comment on a blog',
      description:
        "The token's `sub` becomes the owner of the comment (who may delete it); `author` is the name shown, as " +
        'given. Only a published blog takes comments. Checks run in this order: token (401), blog id (400), content ' +
        'type (415), body (400), the blog exists and the caller may read it (404), it is published (409); body size ' +
        '(413) and malformed JSON (400) are checked while the body is read.',
    }),
    ApiIdParam('blog'),
    ApiBody({
      type: CreateCommentDto,
      description: '`author` and `body`, both required; any other property is 400.',
      examples: { comment: { summary: 'A comment', value: { author: 'Bob', body: 'Nice post.' } } },
    }),
    ApiCreatedAt(CommentResponse, 'comment', `${COMMENTS_PATH}/41`, ETAG_HEADER),
    ApiErrorResponses(409, 413, 415),
  );

/** OpenAPI of `DELETE /api/v1/comments/:id`. */
export const ApiDeleteComment = (): MethodDecorator =>
  applyDecorators(
    ApiDeleteById(
      {
        operationId: 'deleteComment',
        summary: 'Delete a comment',
        description:
          "Only the comment's owner (the `sub` that created it), its blog's owner, or a token with scope `blogs:admin` " +
          'may delete a comment; afterwards it reads 404. A request body is not read. Checks run in this order: token ' +
          '(401), id (400), the comment exists and the caller may read its blog (404), who asks (403).',
      },
      'comment',
    ),
    ApiErrorResponses(403),
  );
