import { Injectable } from '@nestjs/common';
import { EventResponse } from './dto/event-response.dto';
import { EventRegistry } from './event-registry';
import { EventsRepository } from './events.repository';

/** A page of the change feed: its events and the `after` of the next page. */
export interface ChangePage {
  readonly data: EventResponse[];
  readonly nextAfter: string | null;
}

/** The change feed: every committed change, once, in commit order, as the registered resources present it. */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly registry: EventRegistry,
  ) {}

  /**
   * Up to `limit` events after the event id `after` (from the first when undefined), once the relay has numbered
   * every change committed so far; `nextAfter` is the last one's id, else `after` (null when undefined).
   */
  async changes(after: string | undefined, limit: number): Promise<ChangePage> {
    await this.events.relay();
    const events = await this.events.after(after ?? '0', limit);
    return { data: await this.registry.present(events), nextAfter: events.at(-1)?.id ?? after ?? null };
  }

  /** The event `id` (int8 in decimal digits) as the feed shows it, or null when the relay has not numbered it. */
  async event(id: string): Promise<EventResponse | null> {
    const event = await this.events.byId(id);
    if (event === null) return null;
    const [presented] = await this.registry.present([event]);
    return presented;
  }
}
