import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { defineApiErrorResponses } from '../openapi/api-error-responses.decorator';
import { ApiTokenResource, missingScope } from '../openapi/operations';
import { WebhookAttemptListResponse } from './dto/webhook-attempt-response.dto';
import { CreatedWebhookResponse, WebhookListResponse, WebhookResponse } from './dto/webhook-response.dto';
import { WEBHOOKS_ADMIN_SCOPE } from './webhooks.constants';

/** The error answers of the webhook routes: the shared ones, the missing scope's 403 and the unknown webhook's 404. */
const ApiErrorResponses = defineApiErrorResponses({
  400: {
    description: 'The body or the id is invalid, or the URL may not receive webhooks.',
    example: ["url's host resolves to a private address (10.0.0.7)"],
  },
  403: missingScope(WEBHOOKS_ADMIN_SCOPE),
  404: { description: 'There is no webhook with this id.', example: 'Webhook 0b5c8a36-… not found' },
});

const ID = ApiParam({ name: 'id', format: 'uuid', description: 'The webhook’s id.' });

/** OpenAPI of the webhooks controller as a whole. */
export const ApiWebhooks = (): ClassDecorator => ApiTokenResource('webhooks');

/** OpenAPI of `POST /api/v1/webhooks`. */
export const ApiCreateWebhook = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      operationId: 'createWebhook',
      summary: 'Register a webhook',
      description:
        'Events of the listed types committed from now on are POSTed to `url`, signed as Standard Webhooks asks ' +
        '(`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer is the only one that shows the secret.',
    }),
    ApiCreatedResponse({ type: CreatedWebhookResponse, description: 'The webhook, with its signing secret.' }),
    ApiErrorResponses(400, 401, 403, 413, 415, 429, 503),
  );

/** OpenAPI of `GET /api/v1/webhooks`. */
export const ApiListWebhooks = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({ operationId: 'listWebhooks', summary: 'List the webhooks' }),
    ApiOkResponse({ type: WebhookListResponse, description: 'Every webhook, oldest first, without secrets.' }),
    ApiErrorResponses(401, 403, 429, 503),
  );

/** OpenAPI of `GET /api/v1/webhooks/{id}`. */
export const ApiGetWebhook = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({ operationId: 'getWebhook', summary: 'Read one webhook' }),
    ID,
    ApiOkResponse({ type: WebhookResponse, description: 'The webhook, without its secret.' }),
    ApiErrorResponses(400, 401, 403, 404, 429, 503),
  );

/** OpenAPI of `DELETE /api/v1/webhooks/{id}`. */
export const ApiDeleteWebhook = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({ operationId: 'deleteWebhook', summary: 'Remove a webhook and its pending deliveries' }),
    ID,
    ApiNoContentResponse({ description: 'Removed.' }),
    ApiErrorResponses(400, 401, 403, 404, 429, 503),
  );

/** OpenAPI of `GET /api/v1/webhooks/{id}/deliveries`. */
export const ApiListWebhookDeliveries = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'Read a webhook’s delivery log' }),
    ID,
    ApiOkResponse({ type: WebhookAttemptListResponse, description: 'The last 100 attempts, newest first.' }),
    ApiErrorResponses(400, 401, 403, 404, 429, 503),
  );
