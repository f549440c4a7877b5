import { applyDecorators } from '@nestjs/common';
import { ClassConstructor, plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, Max, Min, validateSync, ValidationOptions } from 'class-validator';
import { parseCanonicalInteger } from '../common/canonical-integer';

/** Runtime modes the service knows; `production` turns on the strict checks. */
const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** A configuration value was missing or invalid; `message` is one line naming the variable. */
export class ConfigValidationError extends Error {
  override readonly name = 'ConfigValidationError';
}

/** One key per property of a schema class, so the compiler keeps its list of variables complete. */
export type VariableNames<T> = Readonly<Record<keyof T, true>>;

/** Whether the service reads `.env`: outside tests (`NODE_ENV=test`), whose environment is all given. */
export const readsEnvFile = (env: NodeJS.ProcessEnv): boolean => env.NODE_ENV !== 'test';

/** Adds the variables of `./.env` that `process.env` lacks (as Nest's ConfigModule does); none without the file. */
export function loadEnvFile(): void {
  try {
    process.loadEnvFile('.env');
  } catch {
    // no .env file: the environment alone configures the process
  }
}

/** Base of the schemas that read `NODE_ENV` (`development` by default). */
export class NodeEnvVariables {
  @IsIn(NODE_ENVS)
  readonly NODE_ENV: NodeEnv = 'development';
}

/**
 * Converts and validates the variables `names` of `env` with the rules of `schema`; unknown
 * variables are ignored and unset ones keep the schema's defaults.
 * @throws ConfigValidationError naming the first invalid variable.
 */
export function readEnvironment<T extends object>(
  schema: ClassConstructor<T>,
  names: VariableNames<T>,
  env: NodeJS.ProcessEnv,
): T {
  const known: Record<string, string> = {};
  for (const name of Object.keys(names)) {
    const value = env[name];
    if (value !== undefined) known[name] = value;
  }
  const vars = plainToInstance(schema, known);
  const [error] = validateSync(vars, { forbidUnknownValues: true });
  if (error !== undefined) {
    const message = Object.values(error.constraints ?? {})[0] ?? `${error.property} is invalid`;
    throw new ConfigValidationError(`Invalid configuration: ${message}`);
  }
  return vars;
}

/** Throws the one-line {@link ConfigValidationError} of a rule that spans several variables. */
export function invalidConfiguration(message: string): never {
  throw new ConfigValidationError(`Invalid configuration: ${message}`);
}

/** An empty value counts as unset. */
export const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/** Splits a comma-separated list, trimming each item and dropping empty ones. */
export const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    : value;

/** A canonical decimal integer in `[min, max]`; `unit` goes into the message after "integer". */
export function IntegerInRange(min: number, max: number, unit = ''): PropertyDecorator {
  const message: ValidationOptions = { message: `$property must be an integer${unit} between ${min} and ${max}` };
  return applyDecorators(Transform(parseCanonicalInteger), IsInt(message), Min(min, message), Max(max, message));
}

/** Exactly `true` or `false`. */
export function BooleanString(): PropertyDecorator {
  const toBoolean = ({ value }: { value: unknown }): unknown =>
    value === 'true' ? true : value === 'false' ? false : value;
  return applyDecorators(Transform(toBoolean), IsBoolean({ message: '$property must be "true" or "false"' }));
}
