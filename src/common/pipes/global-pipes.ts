import { PipeTransform } from '@nestjs/common';
import { JsonBodyPipe } from './json-body.pipe';
import { ProblemValidationPipe } from './problem-validation.pipe';

let shared: readonly PipeTransform[] | undefined;

/**
 * The global pipes, in order: {@link JsonBodyPipe}, then a strict `ValidationPipe` whose 400 lists each broken rule
 * ({@link ProblemValidationPipe}, docs/architecture.md). One list,
 * made at the first call, for the app and every `@JsonBody()`: the pipes keep no state between calls.
 */
export function globalPipes(): readonly PipeTransform[] {
  return (shared ??= Object.freeze([
    new JsonBodyPipe(),
    new ProblemValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      stopAtFirstError: true,
    }),
  ]));
}
