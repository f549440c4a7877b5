import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { SLUG_PATTERN } from '../common/text/slug';
import { defineApiErrorResponses } from '../openapi/api-error-responses.decorator';
import { ApiListPage, ApiPublicOperation } from '../openapi/operations';
import { publicReadHeaders, READ_ACCESS_NOTE } from '../openapi/read-access';
import { TagListResponse, TagResponse } from './dto/tag-response.dto';
import { TAG_LIMITS } from './tag-limits';

/** The error answers of the tag operations: the shared ones and the tags' 404. */
const ApiErrorResponses = defineApiErrorResponses({
  400: {
    description: 'The query (unknown parameter, `cursor`, a bad `limit`, `offset` or `sort`) or the slug is invalid.',
    example: ['sort must be one of -count, slug'],
  },
  404: { description: 'No published blog has this tag.', example: 'Tag nestjs not found' },
});

const COUNTED =
  '`count` is the exact number of blogs with the tag that are published (`publishedAt` now or earlier); drafts and ' +
  'blogs scheduled for later do not count, and a tag counts none until its first blog is published.';

/** OpenAPI of the tags controller as a whole, with the errors every operation answers (each adds its own). */
export const ApiTagsResource = (): ClassDecorator =>
  applyDecorators(ApiErrorResponses(400, 401, 429, 503), ApiTags('tags'));

/** OpenAPI of `GET /api/v1/tags`. */
export const ApiListTags = (): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: 'listTags',
      summary: 'List the tags of published blogs, most used first by default',
      description:
        `Only tags with at least one published blog are listed; \`total\` counts them. ${COUNTED} Paging by ` +
        '`limit` and `offset` only: there is no `cursor`. Every parameter at most once; an unknown or repeated ' +
        `parameter or a bad value is 400 naming the parameter. ${READ_ACCESS_NOTE}`,
    }),
    ApiListPage(TagListResponse, 'tags', 'blogs'),
  );

/** OpenAPI of `GET /api/v1/tags/:slug`. */
export const ApiGetTag = (): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: 'getTag',
      summary: 'Read one tag with the number of its published blogs',
      description: `${COUNTED} A tag without a published blog is 404. ${READ_ACCESS_NOTE}`,
    }),
    ApiParam({
      name: 'slug',
      description: "The tag's slug: lower-case letters `a-z` and digits, in runs joined by single `-`.",
      schema: { type: 'string', pattern: SLUG_PATTERN.source, maxLength: TAG_LIMITS.slug.max, example: 'nestjs' },
    }),
    ApiOkResponse({ type: TagResponse, description: 'The tag.', headers: publicReadHeaders('blogs') }),
    ApiErrorResponses(404),
  );
