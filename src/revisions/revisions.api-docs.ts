import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { BlogResponse } from '../blogs/dto/blog-response.dto';
import { BLOG_WORDING } from '../blogs/blog-visibility';
import { changedError, defineApiErrorResponses, notOwnerError } from '../openapi/api-error-responses.decorator';
import { ApiPreconditionHeaders, entityTagHeader, linkNextHeader } from '../openapi/conditional-request';
import { ApiIdParam, idParamOptions } from '../openapi/id-param';
import { BEARER_SCHEME } from '../openapi/openapi';
import { RevisionListResponse, RevisionResponse } from './dto/revision-response.dto';
import { blogRevisionsPath } from './revision-paths';

/** The error answers of the revision operations: the shared ones and the revisions' 403, 404 and 412. */
const ApiErrorResponses = defineApiErrorResponses({
  403: notOwnerError(
    BLOG_WORDING,
    'read or restore its revisions',
    'The token is valid and the caller may read the blog (it is published), but is neither its owner nor ' +
      '`blogs:admin`.',
  ),
  404: {
    description:
      'No blog has this id, or the caller may not read it (a draft or scheduled blog of another owner): the same ' +
      'answer; or, for an owner, the blog keeps no such revision (older ones than the newest `REVISIONS_KEPT` are gone).',
    example: 'Revision 3 of blog 7 not found',
  },
  412: changedError(
    BLOG_WORDING,
    7,
    'Restore only: `If-Match` names another version of the blog than its current one, or `If-None-Match` its ' +
      'current one (RFC 9110 §13.1). Nothing was restored.',
  ),
});

/** Who may use revisions, and the order of the checks every revision operation makes. */
const REVISIONS_NOTE =
  "Only the blog's owner (the `sub` that created it) or a token with scope `blogs:admin`; answers are `no-store`. " +
  'Checks run in this order: token (401), id (and version) (400), the blog exists and the caller may read it ' +
  '(404), owner or admin (403)';

/** The check of the operations on one revision, after {@link REVISIONS_NOTE}'s. */
const KEPT_CHECK = ', the revision is kept (404)';

/** OpenAPI of the revisions controller as a whole, with the errors every operation answers (each adds its own). */
export const ApiRevisions = (): ClassDecorator =>
  applyDecorators(
    ApiErrorResponses(400, 401, 403, 404, 429, 503),
    ApiTags('revisions'),
    ApiBearerAuth(BEARER_SCHEME),
    ApiExtraModels(RevisionResponse),
  );

/** The `:version` path parameter. */
const ApiVersionParam = (): MethodDecorator =>
  ApiParam({
    ...idParamOptions('revision', 'version'),
    description: "The revision: the blog's version it kept (its `version`); decimal digits, no sign or leading zero.",
  });

/** OpenAPI of `GET /api/v1/blogs/:id/revisions`. */
export const ApiListRevisions = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      operationId: 'listRevisions',
      summary: "List a blog's revisions, newest first",
      description:
        "`total` counts the blog's kept revisions; items have no `content` (read one revision for it). A page " +
        'starts after `offset` revisions, or after the last revision of an earlier page when its `nextCursor` is ' +
        'sent as `cursor`. An unknown or repeated parameter, a bad value, `cursor` with `offset`, or a cursor not made ' +
        `by this service for this blog's revisions is 400 naming the parameter. ${REVISIONS_NOTE}.`,
    }),
    ApiIdParam('blog'),
    ApiOkResponse({
      type: RevisionListResponse,
      description: 'One page of revisions with the total, the effective paging and the cursor of the next page.',
      headers: linkNextHeader(`<${blogRevisionsPath(7)}?limit=10&cursor=eyJ2IjoxfQ.c2lnbmF0dXJl>; rel="next"`),
    }),
  );

/** OpenAPI of `GET /api/v1/blogs/:id/revisions/:version`. */
export const ApiGetRevision = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      operationId: 'getRevision',
      summary: 'Read one revision of a blog',
      description: `${REVISIONS_NOTE}${KEPT_CHECK}.`,
    }),
    ApiIdParam('blog'),
    ApiVersionParam(),
    ApiOkResponse({ type: RevisionResponse, description: 'The revision, with its `content`.' }),
  );

/** OpenAPI of `POST /api/v1/blogs/:id/revisions/:version/restore`. */
export const ApiRestoreRevision = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      operationId: 'restoreRevision',
      summary: "Restore a revision as the blog's text",
      description:
        "An update of the blog: its `title`, `content`, `author` and `tags` become the revision's; `status`, " +
        '`publishedAt` and `slug` stay. It makes a new version and revision, a `blog.updated` event and the purges ' +
        'of an update; restoring the text the blog has changes nothing and answers the blog. No body is read. ' +
        `${REVISIONS_NOTE}${KEPT_CHECK}, then \`If-Match\` / \`If-None-Match\` (412, as for \`PUT\`; a malformed value is 400 ` +
        'with the id checks).',
    }),
    ApiIdParam('blog'),
    ApiVersionParam(),
    ApiPreconditionHeaders('Restore', 'blog'),
    ApiOkResponse({
      type: BlogResponse,
      description: 'The blog as stored.',
      headers: entityTagHeader('blog as stored', 'send it back in `If-Match` to write only over this version', '"7-4"'),
    }),
    ApiErrorResponses(412),
  );
