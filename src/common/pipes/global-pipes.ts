import { PipeTransform, ValidationPipe } from '@nestjs/common';
import { JsonBodyPipe } from './json-body.pipe';

/** The global pipes, in order: {@link JsonBodyPipe}, then a strict `ValidationPipe` (docs/architecture.md). */
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
