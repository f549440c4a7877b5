import { Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { EventRegistry } from '../events/event-registry';
import type { EventType } from '../events/event-type';
import { WebhookAddressPolicy } from './webhook-address-policy';
import type { WebhookAttempt } from './webhook-attempt.entity';
import type { Webhook } from './webhook.entity';
import { WebhooksRepository } from './webhooks.repository';
import { ValidationProblemException } from '../common/filters/problem-types';

/** Bytes of a webhook's signing secret (Standard Webhooks: 24 to 64). */
const SECRET_BYTES = 32;

/** Registering, reading and removing webhooks (their deliveries run in {@link WebhookDeliveryJob}). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly addresses: WebhookAddressPolicy,
    private readonly registry: EventRegistry,
  ) {}

  /**
   * Registers `url` for `events` with a new secret, for the events committed from now on.
   * @throws BadRequestException when a type of `events` is not registered (one error per item, `/events/<i>`), or `url` may not receive webhooks
   * (scheme, host, or an address it resolves to).
   */
  async register(url: string, events: readonly EventType[]): Promise<Webhook> {
    const unknown = events.flatMap((type, index) => (this.registry.has(type) ? [] : [index]));
    if (unknown.length > 0) {
      const rule = `must be one of ${this.registry.types().join(', ')}`;
      const errors = unknown.map((index) => ({ detail: `events[${index}] ${rule}`, pointer: `/events/${index}` }));
      throw new ValidationProblemException(
        errors.map(({ detail }) => detail),
        errors,
      );
    }
    const refusal = await this.addresses.refusal(url);
    if (refusal !== null) throw ValidationProblemException.body('/url', refusal);
    const secret = `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
    return this.webhooks.create(url, events, secret);
  }

  list(): Promise<Webhook[]> {
    return this.webhooks.list();
  }

  /** @throws NotFoundException when there is no webhook `id`. */
  async findOne(id: string): Promise<Webhook> {
    const webhook = await this.webhooks.findOne(id);
    if (webhook === null) throw notFound(id);
    return webhook;
  }

  /** Removes the webhook with its pending deliveries and its log. @throws NotFoundException when there is none. */
  async remove(id: string): Promise<void> {
    if (!(await this.webhooks.delete(id))) throw notFound(id);
  }

  /** The webhook's last attempts, newest first. @throws NotFoundException when there is no webhook `id`. */
  async attempts(id: string): Promise<WebhookAttempt[]> {
    await this.findOne(id);
    return this.webhooks.lastAttempts(id);
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`Webhook ${id} not found`);
}
