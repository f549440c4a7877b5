import { ArgumentMetadata, Injectable, PipeTransform, UnsupportedMediaTypeException } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { MAX_BODY_DEPTH, UnreadBody } from '../http/json-body.reader';
import { bodyMediaTypes, JSON_CHARSET } from '../http/json-content-type';
import { InvalidParam, jsonPointer, ValidationProblemException } from '../filters/problem-types';

/** Most own properties a body may have. */
export const MAX_BODY_PROPERTIES = 16;

const NAMED_UNKNOWN_PROPERTIES = 3;

// class-transformer drops these silently; they are rejected instead.
const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/**
 * Global pipe, before `ValidationPipe`, for `@Body()` and query objects.
 * @throws UnsupportedMediaTypeException (415) for a body not read as UTF-8 JSON.
 * @throws ValidationProblemException (400) for an empty or non-object body, more than {@link MAX_BODY_PROPERTIES}
 *   properties, nesting deeper than {@link MAX_BODY_DEPTH}, or a `__proto__`, `constructor` or `prototype` key.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'query') return rejectReservedKeys(value, (key) => ({ parameter: key }));
    if (metadata.type !== 'body') return value;
    // A `@Body()` without `@JsonBody()`: the body was not read.
    if (value === undefined) throw unsupportedMediaType(bodyMediaTypes(undefined));
    if (value instanceof UnreadBody) {
      if (value.acceptedTypes !== undefined) throw unsupportedMediaType(value.acceptedTypes);
      throw ValidationProblemException.body('', 'request body must be a JSON object, not empty');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw ValidationProblemException.body('', 'request body must be a JSON object');
    }
    rejectExcessProperties(value, metadata.metatype);
    if (nestingDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
      throw ValidationProblemException.body(
        '',
        `request body must not nest objects or arrays more than ${MAX_BODY_DEPTH} levels deep`,
      );
    }
    return rejectReservedKeys(value, (key) => ({ pointer: jsonPointer([key]) }));
  }
}

function unsupportedMediaType(acceptedTypes: readonly string[]): UnsupportedMediaTypeException {
  return new UnsupportedMediaTypeException(
    `Content-Type must be ${acceptedTypes.join(' or ')} (optionally with charset=${JSON_CHARSET})`,
  );
}

// Runs before class-transformer, whose copy is quadratic in the number of keys (docs/security.md).
function rejectExcessProperties(body: object, dto: ArgumentMetadata['metatype']): void {
  const keys = Object.keys(body);
  if (keys.length <= MAX_BODY_PROPERTIES) return;
  const known = new Set(validatedProperties(dto));
  const unknown = keys.filter((key) => !known.has(key)).slice(0, NAMED_UNKNOWN_PROPERTIES);
  const errors: InvalidParam[] = [
    {
      detail: `request body must not have more than ${MAX_BODY_PROPERTIES} properties; it has ${keys.length}`,
      pointer: '',
    },
    ...unknown.map((key) => ({ detail: `property ${key} should not exist`, pointer: jsonPointer([key]) })),
  ];
  throw new ValidationProblemException(
    errors.map((error) => error.detail),
    errors,
  );
}

/** The properties `dto` has class-validator rules for, each once, in the order of their first rule. */
export function validatedProperties(dto: ArgumentMetadata['metatype']): string[] {
  if (dto === undefined) return [];
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  return [...new Set(rules.map((rule) => rule.propertyName))];
}

/** How deep objects and arrays nest in `value` (0 for a primitive), without recursion; `limit + 1` past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 1;
  const pending: [object, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [object, number];
    for (const child of Object.values(node) as unknown[]) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth + 1 > limit) return limit + 1;
      deepest = Math.max(deepest, depth + 1);
      pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** @throws ValidationProblemException naming each reserved key where `locate` puts it (pointer or parameter). */
function rejectReservedKeys(
  value: unknown,
  locate: (key: string) => { pointer: string } | { parameter: string },
): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const present = RESERVED_KEYS.filter((key) => Object.prototype.hasOwnProperty.call(value, key));
  if (present.length > 0) {
    const errors = present.map((key) => ({ detail: `property ${key} should not exist`, ...locate(key) }));
    throw new ValidationProblemException(
      errors.map((error) => error.detail),
      errors,
    );
  }
  return value;
}
