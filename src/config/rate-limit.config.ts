import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Matches } from 'class-validator';
import { MAX_RATE_LIMIT, MAX_RATE_LIMIT_WINDOW_SECONDS } from '../rate-limit/rate-limit.constants';
import { BooleanString, emptyToUndefined, IntegerInRange, readEnvironment, VariableNames } from './environment';

class RateLimitVariables {
  @BooleanString()
  readonly RATE_LIMIT_ENABLED: boolean = true;

  @IntegerInRange(1, MAX_RATE_LIMIT_WINDOW_SECONDS)
  readonly RATE_LIMIT_WINDOW_SECONDS: number = 60;

  @IntegerInRange(1, MAX_RATE_LIMIT)
  readonly RATE_LIMIT_READS: number = 6_000;

  @IntegerInRange(1, MAX_RATE_LIMIT)
  readonly RATE_LIMIT_WRITES: number = 600;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  readonly REDIS_URL?: string;

  @IsString()
  @Matches(/^[A-Za-z0-9:._-]{1,64}$/, {
    message: 'RATE_LIMIT_REDIS_PREFIX must be 1–64 characters of letters, digits and : . _ -',
  })
  readonly RATE_LIMIT_REDIS_PREFIX: string = 'blog-service:rate-limit:';
}

/** Variables of the `rateLimit` namespace. */
export const RATE_LIMIT_VARIABLES: VariableNames<RateLimitVariables> = {
  RATE_LIMIT_ENABLED: true,
  RATE_LIMIT_WINDOW_SECONDS: true,
  RATE_LIMIT_READS: true,
  RATE_LIMIT_WRITES: true,
  REDIS_URL: true,
  RATE_LIMIT_REDIS_PREFIX: true,
};

/** Abuse limits: reads per client address, writes per token subject, each per window. */
export interface RateLimitConfig {
  readonly enabled: boolean;
  readonly windowSeconds: number;
  /** Reads (GET, HEAD, OPTIONS) one client address may make per window. */
  readonly reads: number;
  /** Writes one token `sub` may make per window. */
  readonly writes: number;
  /** Counters live in this Redis when set (shared by every replica), else in process memory. */
  readonly redisUrl?: string;
  readonly redisPrefix: string;
}

/** @throws ConfigValidationError naming the first invalid `rateLimit` variable. */
export function loadRateLimitConfig(env: NodeJS.ProcessEnv): RateLimitConfig {
  const vars = readEnvironment(RateLimitVariables, RATE_LIMIT_VARIABLES, env);
  return {
    enabled: vars.RATE_LIMIT_ENABLED,
    windowSeconds: vars.RATE_LIMIT_WINDOW_SECONDS,
    reads: vars.RATE_LIMIT_READS,
    writes: vars.RATE_LIMIT_WRITES,
    redisUrl: vars.REDIS_URL,
    redisPrefix: vars.RATE_LIMIT_REDIS_PREFIX,
  };
}

/** The `rateLimit` namespace: `@Inject(rateLimitConfig.KEY) config: ConfigType<typeof rateLimitConfig>`. */
export const rateLimitConfig = registerAs('rateLimit', () => loadRateLimitConfig(process.env));
