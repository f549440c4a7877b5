import { isIP } from 'node:net';
import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, Matches, ValidateIf } from 'class-validator';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, MAX_SHUTDOWN_TIMEOUT_MS } from '../lifecycle/shutdown.constants';
import { IntegerInRange, NodeEnvVariables, readEnvironment, toList, VariableNames } from './environment';
import { parseTrustProxy, TrustProxy } from './trust-proxy';

/** Where the service listens unless `HOST` says otherwise: this machine only. */
const DEFAULT_HOST = '127.0.0.1';

/** A browser origin as the `Origin` header carries it: scheme, host and optional port, no path. */
const ORIGIN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

/** A DNS host name: labels of letters, digits and inner hyphens, separated by dots. */
const HOST_NAME =
  /^(?=.{1,253}$)[0-9A-Za-z](?:[0-9A-Za-z-]{0,61}[0-9A-Za-z])?(?:\.[0-9A-Za-z](?:[0-9A-Za-z-]{0,61}[0-9A-Za-z])?)*$/;

/** `PUBLIC_URL` as an absolute http(s) URL without query, fragment or credentials, with no trailing `/`; else null. */
export function parsePublicUrl({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string' || value === '') return value === '' ? undefined : value;
  if (!/^https?:\/\//i.test(value) || /[?#\s]/.test(value)) return null;
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '') return null;
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}

class HttpVariables extends NodeEnvVariables {
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

  @Transform(parsePublicUrl)
  @ValidateIf((_vars: unknown, value: unknown) => value !== undefined)
  @IsString({
    message:
      'PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, such as https://api.blog.example',
  })
  readonly PUBLIC_URL?: string;
}

/** Variables of the `http` namespace. */
export const HTTP_VARIABLES: VariableNames<HttpVariables> = {
  PORT: true,
  HOST: true,
  TRUST_PROXY: true,
  CORS_ORIGINS: true,
  SHUTDOWN_TIMEOUT_MS: true,
  PUBLIC_URL: true,
  NODE_ENV: true,
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
  /** The service's public base URL (`PUBLIC_URL`), no trailing `/`: `http://127.0.0.1:<PORT>` unless set. */
  readonly publicUrl: string;
  /** Why start-up warns about this configuration (production without `PUBLIC_URL`), or undefined. */
  readonly warning?: string;
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
    publicUrl: vars.PUBLIC_URL ?? `http://${DEFAULT_HOST}:${vars.PORT}`,
    ...(vars.PUBLIC_URL === undefined && vars.NODE_ENV === 'production'
      ? {
          warning: `PUBLIC_URL is unset: problem type URIs, feeds and sitemaps name http://${DEFAULT_HOST}:${vars.PORT}`,
        }
      : {}),
  };
}

/** The `http` namespace: `@Inject(httpConfig.KEY) config: ConfigType<typeof httpConfig>`. */
export const httpConfig = registerAs('http', () => loadHttpConfig(process.env));
