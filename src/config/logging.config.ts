import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { emptyToUndefined, NodeEnv, NodeEnvVariables, readEnvironment, VariableNames } from './environment';

/** pino's levels plus `silent` (logs nothing), as `LOG_LEVEL` accepts them. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

class LoggingVariables extends NodeEnvVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  readonly LOG_LEVEL?: LogLevel;
}

/** Variables of the `logging` namespace. */
export const LOGGING_VARIABLES: VariableNames<LoggingVariables> = { NODE_ENV: true, LOG_LEVEL: true };

/** What is logged, and how: pretty lines in development, JSON lines otherwise. */
export interface LoggingConfig {
  /** Lowest level written: `LOG_LEVEL`, by default `info`, and `silent` when `NODE_ENV=test`. */
  readonly level: LogLevel;
  readonly nodeEnv: NodeEnv;
}

/** @throws ConfigValidationError naming the first invalid `logging` variable. */
export function loadLoggingConfig(env: NodeJS.ProcessEnv): LoggingConfig {
  const vars = readEnvironment(LoggingVariables, LOGGING_VARIABLES, env);
  return { level: vars.LOG_LEVEL ?? (vars.NODE_ENV === 'test' ? 'silent' : 'info'), nodeEnv: vars.NODE_ENV };
}

/** The `logging` namespace: `@Inject(loggingConfig.KEY) config: ConfigType<typeof loggingConfig>`. */
export const loggingConfig = registerAs('logging', () => loadLoggingConfig(process.env));
