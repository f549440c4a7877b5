import { FactoryProvider, Logger, Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { jobsConfig } from '../config/jobs.config';
import { loggingConfig } from '../config/logging.config';
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

/**
 * The address rules for `allowedHosts` (WEBHOOK_ALLOWED_HOSTS): in production, a warning that they skip the checks;
 * elsewhere, refusals that mention the variable.
 */
export function webhookAddressPolicy(allowedHosts: readonly string[], production: boolean): WebhookAddressPolicy {
  if (production && allowedHosts.length > 0) {
    new Logger('Webhooks').warn(
      `WEBHOOK_ALLOWED_HOSTS lets ${allowedHosts.join(', ')} receive webhooks without the address checks, over http too`,
    );
  }
  return new WebhookAddressPolicy(allowedHosts, undefined, !production);
}

/** {@link WebhookAddressPolicy} from `WEBHOOK_ALLOWED_HOSTS` and `NODE_ENV`. */
export const addressPolicyProvider: FactoryProvider<WebhookAddressPolicy> = {
  provide: WebhookAddressPolicy,
  inject: [jobsConfig.KEY, loggingConfig.KEY],
  useFactory: (jobs: ConfigType<typeof jobsConfig>, logging: ConfigType<typeof loggingConfig>) =>
    webhookAddressPolicy(jobs.webhookAllowedHosts, logging.nodeEnv === 'production'),
};

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
    addressPolicyProvider,
    {
      provide: WebhookSender,
      inject: [WebhookAddressPolicy],
      useFactory: (policy: WebhookAddressPolicy) => new WebhookSender(policy),
    },
  ],
})
export class WebhooksModule {}
