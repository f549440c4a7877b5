import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { EVENT_TYPE_SCHEMA, EventResponse } from './dto/event-response.dto';
import type { EventResourceOptions } from './event-resource';

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** The OpenAPI name of `resource`'s event schema: `blog` → `BlogEventResponse`. */
export const eventSchemaName = (resource: string): string =>
  `${resource.charAt(0).toUpperCase()}${resource.slice(1)}EventResponse`;

/**
 * Makes `document`'s event schemas from the registered `resources` (their payload classes among its models): the enum
 * {@link EVENT_TYPE_SCHEMA} of every type, one `<Resource>EventResponse` per resource with its types and its key, and
 * `EventResponse` as their `oneOf`, told apart by `type`.
 */
export function applyEventSchemas(document: OpenAPIObject, resources: readonly EventResourceOptions[]): void {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  const base = schemas[EventResponse.name] as SchemaObject;
  const { id, occurredAt } = base.properties ?? {};
  schemas[EVENT_TYPE_SCHEMA] = {
    type: 'string',
    enum: resources.flatMap(({ types }) => types),
    description: 'An event type: `<resource>.<what happened>`; its event carries the resource under that name.',
  };
  const mapping: Record<string, string> = {};
  for (const { resource, types, schemas: payloads, description } of resources) {
    const name = eventSchemaName(resource);
    const payload: SchemaObject =
      payloads.length === 1
        ? { allOf: [ref(payloads[0].name)], description }
        : { oneOf: payloads.map(({ name: model }) => ref(model)), description };
    schemas[name] = {
      type: 'object',
      properties: {
        id,
        type: { type: 'string', enum: [...types], example: types[0] },
        occurredAt,
        [resource]: payload,
      },
      required: ['id', 'type', 'occurredAt', resource],
      additionalProperties: false,
    };
    for (const type of types) mapping[type] = ref(name).$ref;
  }
  schemas[EventResponse.name] = {
    oneOf: resources.map(({ resource }) => ref(eventSchemaName(resource))),
    discriminator: { propertyName: 'type', mapping },
    description:
      'One change: `id`, `type`, `occurredAt`, and the changed resource under the name that prefixes its type.',
  };
}
