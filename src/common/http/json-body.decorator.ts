import { Body, PipeTransform, Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { JsonBodyInterceptor } from './json-body.interceptor';

/**
 * `@Body(...pipes)` that also puts {@link JsonBodyInterceptor} on its handler, so a handler cannot take a body that
 * nothing reads (415). Everything happens when the class is declared; a request pays only for the interceptor.
 */
export function JsonBody(...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator {
  const body = Body(...pipes);
  return (target, key, index) => {
    body(target, key, index);
    const handler = (target as Record<PropertyKey, unknown>)[key as PropertyKey] as object;
    const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
    if (!interceptors.includes(JsonBodyInterceptor)) {
      Reflect.defineMetadata(INTERCEPTORS_METADATA, [...interceptors, JsonBodyInterceptor], handler);
    }
  };
}
