import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { defineApiErrorResponses } from '../openapi/api-error-responses.decorator';
import { ApiTokenResource, missingScope } from '../openapi/operations';
import { ChangePageResponse } from './dto/change-page.dto';
import { EVENTS_READ_SCOPE } from './events.constants';

/** The error answers of the change feed: the shared ones and the missing scope's 403. */
const ApiErrorResponses = defineApiErrorResponses({
  400: {
    description: 'The query (unknown or repeated parameter, a bad `after` or `limit`) is invalid.',
    example: ['after must be an event id: decimal digits without sign or leading zeros, at most 2^63 - 1'],
  },
  403: missingScope(EVENTS_READ_SCOPE),
});

/** OpenAPI of the change feed controller as a whole. */
export const ApiChangesResource = (): ClassDecorator => ApiTokenResource('changes');

/** OpenAPI of `GET /api/v1/changes`. */
export const ApiListChanges = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      operationId: 'listChanges',
      summary: 'Read the change feed: every change, once, in commit order',
      description:
        'Events after `after`, oldest first. Save `nextAfter` and ask with it again: every later event comes ' +
        'exactly once, none skipped, across restarts and replicas. An event is in the feed once its change has ' +
        `committed. Needs a token with the scope \`${EVENTS_READ_SCOPE}\` (\`blogs:admin\` does not imply it).`,
    }),
    ApiOkResponse({ type: ChangePageResponse, description: 'A page of events and the `after` of the next page.' }),
    ApiErrorResponses(400, 401, 403, 429, 503),
  );
