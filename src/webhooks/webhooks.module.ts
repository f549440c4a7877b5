import { Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { jobsConfig } from '../config/jobs.config';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { JobsModule } from '../jobs/jobs.module';
import { WebhookAddressPolicy } from './webhook-address-policy';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryJob } from './webhook-delivery.job';
import { WebhookHistoryJob } from './webhook-history.job';
import { WebhookSender } from './webhook-sender';
import { Webhook } from './webhook.entity';
import { WebhookMetrics } from './webhook.metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks: registration at `/api/v1/webhooks`, signed deliveries of events through the job library, their log. */
@Module({
  imports: [
    DatabaseModule,
    JobsModule,
    EventsModule,
    TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookAttempt]),
  ],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookDeliveryJob,
    WebhookHistoryJob,
    WebhookMetrics,
    {
      provide: WebhookAddressPolicy,
      inject: [jobsConfig.KEY],
      useFactory: (config: ConfigType<typeof jobsConfig>) => new WebhookAddressPolicy(config.webhookAllowedHosts),
    },
    {
      provide: WebhookSender,
      inject: [WebhookAddressPolicy],
      useFactory: (policy: WebhookAddressPolicy) => new WebhookSender(policy),
    },
  ],
})
export class WebhooksModule {}
