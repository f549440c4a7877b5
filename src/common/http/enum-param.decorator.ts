import { applyDecorators, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiParam, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ValidationProblemException } from '../filters/problem-types';

/** The 400 message of a parameter `name` that is none of `values`: `sort must be one of slug, -count`. */
export const enumParamMessage = (name: string, values: readonly string[]): string =>
  `${name} must be one of ${values.join(', ')}`;

/**
 * `raw` when it is one of `values`.
 * @throws BadRequestException (400) naming `name`, for anything else.
 */
export function parseEnum<T extends string>(name: string, values: readonly T[], raw: unknown): T {
  const value = values.find((candidate) => candidate === raw);
  if (value !== undefined) return value;
  throw ValidationProblemException.parameter(name, enumParamMessage(name, values));
}

/** What a closed-list parameter's OpenAPI says besides its values. */
interface EnumParamDocs {
  readonly description: string;
  readonly default?: string;
}

/** A query DTO property that takes one of `values` (else 400 naming it), with its OpenAPI. */
export const EnumParam =
  (values: readonly string[], docs: EnumParamDocs): PropertyDecorator =>
  (target, key) =>
    applyDecorators(
      IsIn(values, { message: enumParamMessage(String(key), values) }),
      ApiPropertyOptional({ enum: values, ...docs }),
    )(target, key);

const enumPathParam = createParamDecorator(
  ({ name, values }: { name: string; values: readonly string[] }, context: ExecutionContext): string =>
    parseEnum(name, values, context.switchToHttp().getRequest<{ params: Record<string, unknown> }>().params[name]),
);

/** The path parameter `name` (`:kind`), one of `values` (else 400 naming it), and its OpenAPI on the handler. */
export const EnumPathParam =
  (name: string, values: readonly string[], description: string): ParameterDecorator =>
  (target, key, index) => {
    enumPathParam({ name, values })(target, key, index);
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
    ApiParam({ name, enum: [...values], description })(target, key, descriptor);
  };
