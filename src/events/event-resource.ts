import type { Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { PreparedStatement } from '../database/statement-runner';

/** What a feature module states about its events, read at start-up and when the OpenAPI document is built. */
export interface EventResourceOptions {
  /** The resource: the key of its events' payload and the prefix of their types (`comment`). */
  readonly resource: string;
  /** Its event types, each `<resource>.<what happened>` (`comment.created`). */
  readonly types: readonly string[];
  /** The `@nestjs/swagger` classes of the payload, one per shape (the OpenAPI `oneOf` of the `<resource>` key). */
  readonly schemas: readonly Type<unknown>[];
  /** OpenAPI description of the payload: which shape goes with which type. */
  readonly description: string;
  /**
   * The `Surrogate-Key`s of this resource's public answers that another resource's events change, by that resource:
   * a comment list hangs off its blog, so comments state `{ blog: (event) => ['comments-<blog id>'] }`.
   */
  readonly purgedBy?: Readonly<Record<string, (event: StoredEvent) => readonly string[]>>;
}

/** An event as stored: `data` is the JSON its writer put in the outbox. */
export interface StoredEvent {
  /** int8 as decimal digits. */
  readonly id: string;
  readonly type: string;
  readonly occurredAt: Date;
  readonly data: Record<string, unknown>;
}

/**
 * The provider a feature module registers with {@link EventResource}: it makes the API shape of its stored events.
 * Discovered by the events module; a resource or type registered twice stops the start-up.
 */
export interface EventPresenter {
  /** The payloads (the `<resource>` values) of `events`, all of this resource, in the same order: one call per page. */
  present(events: readonly StoredEvent[]): Promise<unknown[]>;
  /**
   * The `Surrogate-Key`s of the public answers that `event` changes, purged from shared caches after it
   * (docs/operations.md, "Behind a cache or CDN"); `[]` when none of this resource's answers is public.
   */
  surrogateKeys(event: StoredEvent): readonly string[];
  /** Work run before each relay of the events job (each second), e.g. writing events that a clock makes due. */
  beforeRelay?(): Promise<void>;
}

/** Class decorator of an {@link EventPresenter} provider: registers its module's event resource. */
export const EventResource = DiscoveryService.createDecorator<EventResourceOptions>();

/**
 * Writes an event into the outbox in the caller's transaction (`Transaction.query(RECORD_EVENT, [type, data])`, `data`
 * a JSON string); triggers and SQL functions insert into `event_outbox ("type", "data")` themselves.
 */
export const RECORD_EVENT: PreparedStatement = {
  name: 'events.record',
  text: `INSERT INTO "event_outbox" ("type", "data") VALUES ($1, $2::json)`,
};
