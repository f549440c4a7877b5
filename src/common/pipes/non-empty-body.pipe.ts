import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { validatedProperties } from './json-body.pipe';
import { ValidationProblemException } from '../filters/problem-types';

/**
 * `@Body()` pipe, after the global ones: the body must give at least one of its DTO's properties,
 * as a partial update (e.g. a JSON Merge Patch, RFC 7396) that changes something.
 * @throws BadRequestException (400) naming the properties, for `{}`.
 */
@Injectable()
export class NonEmptyBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (Object.values(value).some((field) => field !== undefined)) return value;
    const names = validatedProperties(metadata.metatype);
    throw ValidationProblemException.body(
      '',
      `request body must give at least one ${names.length > 0 ? `of ${names.join(', ')}` : 'property'}`,
    );
  }
}
