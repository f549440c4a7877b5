import { VersioningType } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { RequestHandler } from 'express';
import type { NestApplicationOptions } from '@nestjs/common';
import compression from 'compression';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { getToken } from '@willsoto/nestjs-prometheus';
import type { Histogram } from 'prom-client';
import { ConfigType } from '@nestjs/config';
import { httpConfig, loadHttpConfig } from './config/http.config';
import { mapDatabaseUnavailable, mapTransactionRollback } from './database/database-errors';
import { AllExceptionsFilter, PROBLEMS_PATH } from './common/filters/all-exceptions.filter';
import { globalPipes } from './common/pipes/global-pipes';
import { HTTP_LOGGER, HttpLogger } from './logging/logging.module';
import { ignoreRequestNoCacheInFreshness } from './common/http/origin-freshness';
import { createOpenApiDocument, serveOpenApiDocument } from './openapi/openapi';
import { createHttpMetricsMiddleware, HTTP_REQUEST_DURATION, HttpLabel } from './metrics/http-metrics';
import { notFoundEverywhere } from './common/http/not-found-everywhere';
import { answerClientErrors } from './common/http/client-errors';
import { apiPathAliases, versionOneResources } from './common/http/api-path-aliases';
import { notStoredByDefault } from './shared-cache/shared-cache';
import { EventRelayJob } from './events/event-relay.job';
import { relayAfterWrites } from './events/relay-after-writes';

/** Bounds of the HTTP server, in ms: all headers, the whole request, an idle keep-alive connection (docs/security.md). */
export const SERVER_TIMEOUTS = { headersMs: 15_000, requestMs: 30_000, keepAliveMs: 65_000 } as const;

/** Smallest response body compressed (gzip, deflate or br, as `Accept-Encoding` allows), in bytes. */
const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Request headers a browser may send cross-origin, and response headers it may read (CORS). */
const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-Modified-Since',
  'If-None-Match',
  'X-Request-Id',
];
const CORS_EXPOSED_HEADERS = [
  'Accept-Patch',
  'ETag',
  'Idempotent-Replayed',
  'Link',
  'Location',
  'Retry-After',
  'WWW-Authenticate',
  'X-Request-Id',
];

/**
 * Options for `NestFactory.create` and `createNestApplication`: bodies are read only by the `@JsonBody()` parameter
 * of the handlers that take one, after the guards.
 */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false };

/** Global setup shared by `main.ts` and the e2e tests; call it before `app.init()` / `app.listen()`. */
export function setupApp(app: NestExpressApplication): NestExpressApplication {
  // No cache keeps an answer unless a public read says otherwise (docs/api.md, "Caching").
  app.use(notStoredByDefault);
  // First, so every request is logged, also one that matches no route. In preview mode (the
  // OpenAPI CLI) providers are placeholders, and what needs them is skipped.
  const httpLogger = app.get<HttpLogger | undefined>(HTTP_LOGGER);
  if (typeof httpLogger === 'function') app.use(httpLogger);
  // Then, so every response is timed, also those answered before routing.
  app.use(createHttpMetricsMiddleware(app.get<Histogram<HttpLabel>>(getToken(HTTP_REQUEST_DURATION))));
  // A write's events are relayed once its answer is sent; reads pass untouched (no interceptor: docs/performance.md).
  const relay = app.get<EventRelayJob | undefined>(EventRelayJob);
  if (typeof relay?.soon === 'function') app.use(relayAfterWrites(relay));
  const loaded = app.get<ConfigType<typeof httpConfig> | undefined>(httpConfig.KEY);
  const config = Array.isArray(loaded?.corsOrigins) ? loaded : undefined;
  applyServerTimeouts(app.getHttpServer());
  answerClientErrors(app.getHttpServer());
  app.set('trust proxy', config?.trustProxy ?? false);
  // No upgrade-insecure-requests: over plain http at a non-loopback address it sends Swagger UI's
  // assets to an https port that does not exist; https deployments have HSTS (docs/security.md).
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  if (config !== undefined && config.corsOrigins.length > 0) {
    app.enableCors({
      origin: [...config.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  app.use(compressionWhenAccepted());
  app.disable('x-powered-by');
  // Blog responses set their own strong ETag; Express's would hash every body.
  app.set('etag', false);
  ignoreRequestNoCacheInFreshness(app.getHttpAdapter().getInstance());
  // The aliases of every resource a controller serves at v1, read once from the controllers' metadata.
  app.use(apiPathAliases(versionOneResources(app.get(ModulesContainer))));
  app.setGlobalPrefix('api', { exclude: ['health/live', 'health/ready', 'metrics', `${PROBLEMS_PATH}/:name`] });
  notFoundEverywhere(app.getHttpAdapter());
  app.enableVersioning({ type: VersioningType.URI });
  app.useGlobalPipes(...globalPipes());
  app.useGlobalFilters(
    new AllExceptionsFilter(
      app.get(HttpAdapterHost),
      [mapDatabaseUnavailable, mapTransactionRollback],
      config?.publicUrl ?? loadHttpConfig(process.env).publicUrl,
    ),
  );
  serveOpenApiDocument(app, createOpenApiDocument(app));
  return app;
}

/**
 * `compression` for the requests that send `Accept-Encoding`: it wraps every response's `write` and `end` and
 * negotiates at its first byte, which a client that accepts no encoding pays for nothing (docs/performance.md). The
 * others get `Vary: Accept-Encoding` all the same (RFC 9110 §12.5.5), as their answer depends on the header.
 */
function compressionWhenAccepted(): RequestHandler {
  const compress = compression({ threshold: COMPRESSION_THRESHOLD_BYTES });
  return (request, response, next) => {
    if (request.headers['accept-encoding'] !== undefined) return compress(request, response, next);
    response.vary('Accept-Encoding');
    next();
  };
}

/** Sets {@link SERVER_TIMEOUTS} on the application's HTTP server. */
function applyServerTimeouts(server: Server): void {
  server.headersTimeout = SERVER_TIMEOUTS.headersMs;
  server.requestTimeout = SERVER_TIMEOUTS.requestMs;
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveMs;
}
