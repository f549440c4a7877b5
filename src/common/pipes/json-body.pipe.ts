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
 * - an own `__proto__` key → 400 naming it, which `ValidationPipe` would otherwise strip silently.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body') return value;
    if (value === undefined) {
      throw new UnsupportedMediaTypeException('Content-Type must be application/json');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new BadRequestException('request body must be a JSON object');
    }
    if (Object.prototype.hasOwnProperty.call(value, '__proto__')) {
      throw new BadRequestException(['property __proto__ should not exist']);
    }
    return value;
  }
}
