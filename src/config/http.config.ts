import { isIP } from 'node:net';
import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, Matches } from 'class-validator';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, MAX_SHUTDOWN_TIMEOUT_MS } from '../lifecycle/shutdown.constants';
import { IntegerInRange, readEnvironment, toList, VariableNames } from './environment';
import { parseTrustProxy, TrustProxy } from './trust-proxy';

/** Where the service listens unless `HOST` says otherwise: this machine only. */
const DEFAULT_HOST = '127.0.0.1';

/** A browser origin as the `Origin` header carries it: scheme, host and optional port, no path. */
const ORIGIN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

/** A DNS host name: labels of letters, digits and inner hyphens, separated by dots. */
const HOST_NAME =
  /^(?=.{1,253}$)[0-9A-Za-z](?:[0-9A-Za-z-]{0,61}[0-9A-Za-z])?(?:\.[0-9A-Za-z](?:[0-9A-Za-z-]{0,61}[0-9A-Za-z])?)*$/;

class HttpVariables {
  @IntegerInRange(0, 65535)
  readonly PORT: number = 3000;

  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && (isIP(value) !== 0 || HOST_NAME.test(value)) ? value : null,
  )
  @IsDefined({ message: 'HOST must be an IP address or a host name, such as 127.0.0.1, 0.0.0.0, :: or localhost' })
  readonly HOST: string = DEFAULT_HOST;

  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (parseTrustProxy(value.trim()) ?? null) : value,
  )
  @IsDefined({
    message:
      'TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of addresses, CIDR subnets, loopback, linklocal, uniquelocal',
  })
  readonly TRUST_PROXY: TrustProxy = false;

  @Transform(toList)
  @IsString({ each: true })
  @Matches(ORIGIN, {
    each: true,
    message: 'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example',
  })
  readonly CORS_ORIGINS: readonly string[] = [];

  @IntegerInRange(0, MAX_SHUTDOWN_TIMEOUT_MS, ' number of milliseconds')
  readonly SHUTDOWN_TIMEOUT_MS: number = DEFAULT_SHUTDOWN_TIMEOUT_MS;
}

/** Variables of the `http` namespace. */
export const HTTP_VARIABLES: VariableNames<HttpVariables> = {
  PORT: true,
  HOST: true,
  TRUST_PROXY: true,
  CORS_ORIGINS: true,
  SHUTDOWN_TIMEOUT_MS: true,
};

/** The HTTP server: where it listens, whom it trusts, which browsers may call it, how it stops. */
export interface HttpConfig {
  readonly port: number;
  /** The address the server listens on (`HOST`): `127.0.0.1` unless set; `0.0.0.0` or `::` for every interface. */
  readonly host: string;
  /** Whose `X-Forwarded-For` is believed for the client address. */
  readonly trustProxy: TrustProxy;
  /** Origins allowed to call the API from a browser (CORS); empty: none. */
  readonly corsOrigins: readonly string[];
  /** How long requests in flight may still run after SIGTERM / SIGINT, in ms. */
  readonly shutdownTimeoutMs: number;
}

/** @throws ConfigValidationError naming the first invalid `http` variable. */
export function loadHttpConfig(env: NodeJS.ProcessEnv): HttpConfig {
  const vars = readEnvironment(HttpVariables, HTTP_VARIABLES, env);
  return {
    port: vars.PORT,
    host: vars.HOST,
    trustProxy: vars.TRUST_PROXY,
    corsOrigins: vars.CORS_ORIGINS,
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
  };
}

/** The `http` namespace: `@Inject(httpConfig.KEY) config: ConfigType<typeof httpConfig>`. */
export const httpConfig = registerAs('http', () => loadHttpConfig(process.env));
