import { Controller, Delete, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { RequiredScope } from '../auth/required-scope.decorator';
import { JsonBody } from '../common/http/json-body.decorator';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { toWebhookAttemptResponse, WebhookAttemptListResponse } from './dto/webhook-attempt-response.dto';
import {
  CreatedWebhookResponse,
  toWebhookResponse,
  WebhookListResponse,
  WebhookResponse,
} from './dto/webhook-response.dto';
import {
  ApiCreateWebhook,
  ApiDeleteWebhook,
  ApiGetWebhook,
  ApiListWebhookDeliveries,
  ApiListWebhooks,
  ApiWebhooks,
} from './webhooks.api-docs';
import { WEBHOOKS_ADMIN_SCOPE } from './webhooks.constants';
import { WebhooksService } from './webhooks.service';
import { ValidationProblemException } from '../common/filters/problem-types';

/** A webhook id in the path: a UUID, else 400. */
const WEBHOOK_ID = new ParseUUIDPipe({
  exceptionFactory: () => ValidationProblemException.parameter('id', 'id must be a UUID'),
});

/** `/api/v1/webhooks`: registering receivers of events and reading their delivery logs, with `webhooks:admin`. */
@Controller({ path: 'webhooks', version: '1' })
@RequiredScope(WEBHOOKS_ADMIN_SCOPE)
@ApiWebhooks()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ApiCreateWebhook()
  async create(@JsonBody() body: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    const webhook = await this.webhooks.register(body.url, body.events);
    return { ...toWebhookResponse(webhook), secret: webhook.secret };
  }

  @Get()
  @ApiListWebhooks()
  async list(): Promise<WebhookListResponse> {
    return { data: (await this.webhooks.list()).map(toWebhookResponse) };
  }

  @Get(':id')
  @ApiGetWebhook()
  async findOne(@Param('id', WEBHOOK_ID) id: string): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.findOne(id));
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteWebhook()
  async remove(@Param('id', WEBHOOK_ID) id: string): Promise<void> {
    await this.webhooks.remove(id);
  }

  @Get(':id/deliveries')
  @ApiListWebhookDeliveries()
  async deliveries(@Param('id', WEBHOOK_ID) id: string): Promise<WebhookAttemptListResponse> {
    return { data: (await this.webhooks.attempts(id)).map(toWebhookAttemptResponse) };
  }
}
