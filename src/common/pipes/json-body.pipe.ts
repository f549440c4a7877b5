import {
  ArgumentMetadata,
  BadRequestException,
  Injectable,
  PipeTransform,
  UnsupportedMediaTypeException,
} from '@nestjs/common';

/**
 * Global pipe, placed before `ValidationPipe`, for `@Body()` parameters:
 * - no parsed body → 415: the application parses only `application/json` bodies (see
 *   `setupApp`), so a body is absent exactly when the content type was missing or another type;
 * - a JSON array → 400: a body must be a JSON object (API contract);
 * - an own `__proto__`, `constructor` or `prototype` key → 400 naming it: `ValidationPipe` and
 *   class-transformer drop these before validating, so `forbidNonWhitelisted` would never see them
 *   and they would pass silently. Checked for query objects too.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'query') return rejectReservedKeys(value);
    if (metadata.type !== 'body') return value;
    if (value === undefined) {
      throw new UnsupportedMediaTypeException('Content-Type must be application/json');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new BadRequestException('request body must be a JSON object');
    }
    return rejectReservedKeys(value);
  }
}

/** Keys class-transformer drops without a word; a request carrying them is rejected instead. */
const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

function rejectReservedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const present = RESERVED_KEYS.filter((key) => Object.prototype.hasOwnProperty.call(value, key));
  if (present.length > 0) {
    throw new BadRequestException(present.map((key) => `property ${key} should not exist`));
  }
  return value;
}
