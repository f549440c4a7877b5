import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { EventResponse } from './dto/event-response.dto';
import { EventPresenter, EventResource, EventResourceOptions, StoredEvent } from './event-resource';

/** A registered resource: what its module stated, and its presenter once instantiated. */
export interface RegisteredResource {
  readonly options: EventResourceOptions;
  readonly presenter: EventPresenter | undefined;
}

/**
 * The resources that providers registered with {@link EventResource}, from the modules of the application (their
 * instances when made; none in preview mode), by resource name: the order does not follow the modules' imports.
 * @throws Error when two register the same resource or type, a resource is not a lower-case name (`[a-z][a-z0-9_]*`),
 * or a type does not start with `<resource>.`.
 */
export function discoverEventResources(discovery: DiscoveryService): RegisteredResource[] {
  const resources: RegisteredResource[] = [];
  const owners = new Map<string, { name: string; metatype: unknown }>();
  for (const wrapper of discovery.getProviders({ metadataKey: EventResource.KEY })) {
    const options = discovery.getMetadataByDecorator(EventResource, wrapper);
    if (options === undefined) continue;
    const owner = String(wrapper.name);
    if (!/^[a-z][a-z0-9_]*$/.test(options.resource)) {
      throw new Error(`Event resource ${options.resource} of ${owner} is not a lower-case name without dots`);
    }
    // A type starts with its resource's name: two owners of one type are two owners of one resource.
    const earlier = owners.get(options.resource);
    if (earlier !== undefined && earlier.metatype !== wrapper.metatype) {
      throw new Error(`Event resource ${options.resource} is registered twice: by ${earlier.name} and by ${owner}`);
    }
    owners.set(options.resource, { name: owner, metatype: wrapper.metatype });
    const foreign = options.types.find((type) => !type.startsWith(`${options.resource}.`));
    if (foreign !== undefined) {
      throw new Error(`Event type ${foreign} of ${owner} does not start with its resource, ${options.resource}.`);
    }
    if (resources.some(({ options: other }) => other === options)) continue;
    resources.push({ options, presenter: wrapper.instance as EventPresenter | undefined });
  }
  return resources.sort((a, b) => (a.options.resource < b.options.resource ? -1 : 1));
}

/**
 * The event types and presenters that feature modules registered (event-resource.ts), discovered at start-up: the
 * feed and webhooks know no resource themselves.
 */
@Injectable()
export class EventRegistry implements OnModuleInit {
  private resources: readonly RegisteredResource[] = [];
  private readonly byResource = new Map<string, RegisteredResource>();
  private readonly typeSet = new Set<string>();
  /** By resource: the keys other resources' answers hang off its events ({@link EventResourceOptions.purgedBy}). */
  private readonly dependents = new Map<string, ((event: StoredEvent) => readonly string[])[]>();

  constructor(private readonly discovery: DiscoveryService) {}

  /**
   * @throws Error when two providers register the same resource or type (see {@link discoverEventResources}), or a
   *   resource's `purgedBy` names a resource no module registered.
   */
  onModuleInit(): void {
    this.resources = discoverEventResources(this.discovery);
    for (const resource of this.resources) {
      this.byResource.set(resource.options.resource, resource);
      for (const type of resource.options.types) this.typeSet.add(type);
    }
    for (const { options } of this.resources) {
      for (const [other, keys] of Object.entries(options.purgedBy ?? {})) {
        if (!this.byResource.has(other)) {
          throw new Error(`Event resource ${options.resource} hangs off ${other}, which no module registered`);
        }
        this.dependents.set(other, [...(this.dependents.get(other) ?? []), keys]);
      }
    }
  }

  /** Every registered type: by resource name, then in the order each resource lists them. */
  types(): string[] {
    return [...this.typeSet];
  }

  /** Whether `type` is a registered event type. */
  has(type: string): boolean {
    return this.typeSet.has(type);
  }

  /** Runs each resource's `beforeRelay`, one after the other. */
  async beforeRelay(): Promise<void> {
    for (const { presenter } of this.resources) await presenter?.beforeRelay?.();
  }

  /**
   * The `Surrogate-Key`s that `event` changes: its resource's presenter's, then those of the resources that hang off it.
   * @throws Error for an event whose resource no module registered.
   */
  surrogateKeys(event: StoredEvent): readonly string[] {
    const resource = resourceOf(event.type);
    const presenter = this.byResource.get(resource)?.presenter;
    if (presenter === undefined) throw new Error(`No module registered the events of ${resource}`);
    const dependents = this.dependents.get(resource);
    const own = presenter.surrogateKeys(event);
    return dependents === undefined ? own : [...own, ...dependents.flatMap((keys) => keys(event))];
  }

  /**
   * `events` as the API shows them, in the same order: each resource's presenter once, for its events.
   * @throws Error for an event whose resource no module registered.
   */
  async present(events: readonly StoredEvent[]): Promise<EventResponse[]> {
    const groups = new Map<string, number[]>();
    events.forEach((event, index) => {
      const resource = resourceOf(event.type);
      const group = groups.get(resource);
      if (group === undefined) groups.set(resource, [index]);
      else group.push(index);
    });
    const payloads: unknown[] = new Array(events.length);
    for (const [resource, indexes] of groups) {
      const presenter = this.byResource.get(resource)?.presenter;
      if (presenter === undefined) throw new Error(`No module registered the events of ${resource}`);
      const presented = await presenter.present(indexes.map((index) => events[index]));
      indexes.forEach((index, n) => (payloads[index] = presented[n]));
    }
    return events.map(({ id, type, occurredAt }, index) => ({
      id,
      type,
      occurredAt,
      [resourceOf(type)]: payloads[index],
    }));
  }
}

/** The resource of an event type: its prefix before the first dot. */
export function resourceOf(type: string): string {
  const dot = type.indexOf('.');
  return dot < 0 ? type : type.slice(0, dot);
}
