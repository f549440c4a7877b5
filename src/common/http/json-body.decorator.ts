import {
  ArgumentMetadata,
  createParamDecorator,
  ExecutionContext,
  PipeTransform,
  SetMetadata,
  Type,
} from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { globalPipes } from '../pipes/global-pipes';
import { readJsonBody } from './json-body.reader';

/** Handler metadata: the handler reads its JSON body with {@link JsonBody} (the route check of `app.routes.spec.ts`). */
export const JSON_BODY_METADATA = 'json-body:reads';

/** Handler metadata: the handler takes no body ({@link NoBody}); the route check of `app.routes.spec.ts` passes it. */
export const NO_BODY_METADATA = 'json-body:none';

const ReadJsonBody = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const http = context.switchToHttp();
  return readJsonBody(http.getRequest(), http.getResponse<ServerResponse>());
});

/**
 * The body pipes of a {@link JsonBody} parameter, run as for `@Body()`: Nest hands the global pipes a custom
 * parameter as `custom`, which they pass over, so they run here once more with the type `body`.
 */
class BodyPipes implements PipeTransform {
  constructor(private readonly pipes: readonly PipeTransform[]) {}

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const asBody: ArgumentMetadata = { ...metadata, type: 'body' };
    let result = value;
    for (const pipe of this.pipes) result = await pipe.transform(result, asBody);
    return result;
  }
}

/**
 * The handler's JSON body, read when Nest resolves its parameters, after the guards ({@link readJsonBody}), then
 * checked and validated by the global pipes and `pipes`, as `@Body(...pipes)` would be. No interceptor: a route
 * with one pays for Nest's rxjs chain on every request (docs/performance.md).
 */
export function JsonBody(...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator {
  const own = pipes.map((pipe) => (typeof pipe === 'function' ? new pipe() : pipe));
  const parameter = ReadJsonBody(new BodyPipes([...globalPipes(), ...own]));
  return (target, key, index) => {
    parameter(target, key, index);
    const handler = (target as Record<PropertyKey, unknown>)[key as PropertyKey] as object;
    Reflect.defineMetadata(JSON_BODY_METADATA, true, handler);
  };
}

/**
 * Method decorator of a POST, PUT or PATCH that takes no body (`PUT /bookmarks/:blogId`: the path says it all); a body
 * sent is not read. Without it or {@link JsonBody}, `app.routes.spec.ts` names the route.
 */
export const NoBody = (): MethodDecorator => SetMetadata(NO_BODY_METADATA, true);
