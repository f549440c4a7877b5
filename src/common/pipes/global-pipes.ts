import { PipeTransform, ValidationPipe } from '@nestjs/common';
import { JsonBodyPipe } from './json-body.pipe';

/**
 * The application's global pipes, in order: {@link JsonBodyPipe} (415 for a body that is not
 * UTF-8 JSON, 400 for an empty or non-object body or `__proto__`), then `ValidationPipe` with the
 * DTO rules: unknown properties are errors (not silently dropped, nestjs/nest#9309), no implicit
 * type conversion (`"title": 5` is 400), one message per failing property.
 */
export function createGlobalPipes(): PipeTransform[] {
  return [
    new JsonBodyPipe(),
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      stopAtFirstError: true,
    }),
  ];
}
