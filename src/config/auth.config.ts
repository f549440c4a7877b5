import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { randomBytes } from 'node:crypto';
import {
  acceptedAlgorithms,
  isLongEnoughSecret,
  JWT_ALGORITHMS,
  JwtAlgorithm,
  MIN_JWT_SECRET_BYTES,
  unkeyedAlgorithm,
} from '../auth/jwt-algorithms';
import {
  BooleanString,
  emptyToUndefined,
  IntegerInRange,
  invalidConfiguration,
  NodeEnvVariables,
  readEnvironment,
  toList,
  VariableNames,
} from './environment';

class AuthVariables extends NodeEnvVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_SECRET?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'JWT_JWKS_URI must be an http:// or https:// URL' })
  readonly JWT_JWKS_URI?: string;

  @IntegerInRange(100, 600_000, ' number of milliseconds')
  readonly JWT_JWKS_COOLDOWN_MS: number = 10_000;

  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : toList({ value })))
  @IsOptional()
  @IsIn(JWT_ALGORITHMS, {
    each: true,
    message: `JWT_ALGORITHMS must be a comma-separated list of ${JWT_ALGORITHMS.join(', ')}`,
  })
  readonly JWT_ALGORITHMS?: readonly JwtAlgorithm[];

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_ISSUER?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_AUDIENCE?: string;

  @BooleanString()
  readonly READS_REQUIRE_AUTH: boolean = false;
}

/** Variables of the `auth` namespace. */
export const AUTH_VARIABLES: VariableNames<AuthVariables> = {
  NODE_ENV: true,
  JWT_SECRET: true,
  JWT_JWKS_URI: true,
  JWT_JWKS_COOLDOWN_MS: true,
  JWT_ALGORITHMS: true,
  JWT_ISSUER: true,
  JWT_AUDIENCE: true,
  READS_REQUIRE_AUTH: true,
};

/** How bearer tokens are verified. */
export interface JwtConfig {
  /** HMAC key; undefined when only the identity provider's keys are used. */
  readonly secret?: string;
  /** True when no `JWT_SECRET` was given and a random one was made for this process. */
  readonly secretGenerated: boolean;
  readonly issuer?: string;
  readonly audience?: string;
  /** Where the identity provider publishes its JWK Set (RFC 7517 §5). */
  readonly jwksUri?: string;
  /** Shortest pause between two fetches of the JWK Set, in ms. */
  readonly jwksCooldownMs: number;
  /** The only algorithms accepted (RFC 8725 §3.1); never empty. */
  readonly algorithms: readonly JwtAlgorithm[];
}

export interface AuthConfig {
  readonly jwt: JwtConfig;
  /** Whether read routes need a token too. */
  readonly readsRequireAuth: boolean;
}

/**
 * Without `JWT_SECRET` and `JWT_JWKS_URI`, development and test get a random secret.
 * @throws ConfigValidationError naming the first invalid `auth` variable; also when production has
 *   no key or an http:// JWKS URI, a secret is too short, or `JWT_ALGORITHMS` lists an unkeyed algorithm.
 */
export function loadAuthConfig(env: NodeJS.ProcessEnv): AuthConfig {
  const vars = readEnvironment(AuthVariables, AUTH_VARIABLES, env);
  const production = vars.NODE_ENV === 'production';
  const jwksUri = vars.JWT_JWKS_URI;
  if (vars.JWT_SECRET === undefined && jwksUri === undefined && production) {
    invalidConfiguration('JWT_SECRET is required when NODE_ENV=production');
  }
  if (vars.JWT_SECRET !== undefined && !isLongEnoughSecret(vars.JWT_SECRET)) {
    invalidConfiguration(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes long`);
  }
  if (jwksUri?.startsWith('http://') && production) {
    invalidConfiguration('JWT_JWKS_URI must be an https:// URL when NODE_ENV=production');
  }
  const secretGenerated = vars.JWT_SECRET === undefined && jwksUri === undefined;
  const secret = secretGenerated ? randomBytes(MIN_JWT_SECRET_BYTES).toString('base64url') : vars.JWT_SECRET;
  const algorithms = acceptedAlgorithms(vars.JWT_ALGORITHMS, { secret, jwksUri });
  const unkeyed = unkeyedAlgorithm(algorithms, { secret, jwksUri });
  if (unkeyed !== undefined) {
    invalidConfiguration(`JWT_ALGORITHMS lists ${unkeyed.algorithm}, which needs ${unkeyed.needs}`);
  }
  return {
    jwt: {
      secret,
      secretGenerated,
      issuer: vars.JWT_ISSUER,
      audience: vars.JWT_AUDIENCE,
      jwksUri,
      jwksCooldownMs: vars.JWT_JWKS_COOLDOWN_MS,
      algorithms,
    },
    readsRequireAuth: vars.READS_REQUIRE_AUTH,
  };
}

/** The `auth` namespace: `@Inject(authConfig.KEY) config: ConfigType<typeof authConfig>`. */
export const authConfig = registerAs('auth', () => loadAuthConfig(process.env));
