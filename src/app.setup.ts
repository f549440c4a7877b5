import { VersioningType } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestApplicationOptions } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { getToken } from '@willsoto/nestjs-prometheus';
import type { Histogram } from 'prom-client';
import { ConfigType } from '@nestjs/config';
import { httpConfig } from './config/http.config';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter';
import { createGlobalPipes } from './common/pipes/global-pipes';
import { HTTP_LOGGER, HttpLogger } from './logging/logging.module';
import { JsonBodyInterceptor } from './common/http/json-body.interceptor';
import { createOpenApiDocument, serveOpenApiDocument } from './openapi/openapi';
import { createHttpMetricsMiddleware, HTTP_REQUEST_DURATION, HttpLabel } from './metrics/http-metrics';

/**
 * Bounds of the Node.js HTTP server, in milliseconds (its defaults are 60 s, 300 s and 5 s).
 * - headers: a client must send all request headers within 15 s (slow-header "slowloris" clients
 *   cannot hold sockets for a minute each);
 * - request: the whole request, a 1 MiB body included, within 30 s;
 * - keep-alive: an idle connection is kept 65 s, longer than the 60 s idle timeout of common load
 *   balancers, so the balancer closes first and never sends a request on a socket we are closing
 *   (which it would answer 502).
 * Node checks the first two every 30 s (`connectionsCheckingInterval`), so they end a stalled
 * request within 30 s of the bound.
 */
export const SERVER_TIMEOUTS = { headersMs: 15_000, requestMs: 30_000, keepAliveMs: 65_000 } as const;

/** Request headers a browser may send cross-origin, and response headers it may read (CORS). */
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'X-Request-Id'];
const CORS_EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'];

/** Options for `NestFactory.create` and `createNestApplication`: bodies are read by `JsonBodyInterceptor` alone. */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false };

/**
 * The two prefixes seen in the spec's samples, served as aliases of `/api/v1/blogs`. Matched in
 * any letter case because Express routes case-insensitively (its default, which Nest keeps): as
 * `/API/V1/BLOGS` reaches the handlers, so must `/API/BLOGS` and `/V1/Blogs`.
 */
const BLOG_PATH_ALIAS = /^\/(?:api|v1)\/blogs(?=[/?]|$)/i;

/**
 * Rewrites `/api/blogs…` and `/v1/blogs…` (any letter case) to `/api/v1/blogs…` before routing,
 * so the aliases reach the same handlers and behave the same (API contract, "Paths").
 */
export function rewriteBlogPathAliases(request: Request, _response: Response, next: NextFunction): void {
  if (BLOG_PATH_ALIAS.test(request.url)) request.url = request.url.replace(BLOG_PATH_ALIAS, '/api/v1/blogs');
  next();
}

/**
 * Global setup shared by `main.ts` and the e2e tests, so the tests exercise what production runs:
 * request logging, request duration metrics, HTTP server timeouts, `trust proxy`, helmet's
 * security headers, CORS (closed unless `CORS_ORIGINS` is set), JSON body parsing (1 MiB), path
 * aliases, `/api` prefix with URI versioning (`/api/v1/…`), validation pipes, the error filter,
 * and the OpenAPI document with Swagger UI (`/api/docs`). Call it before `app.init()` /
 * `app.listen()`.
 */
export function setupApp(app: NestExpressApplication): NestExpressApplication {
  // First, so that every request is logged and gets its X-Request-Id, also one that matches no route.
  // In Nest's preview mode (the OpenAPI CLI) no provider is instantiated and nothing is served:
  // the logger and the configuration are then placeholders, and what needs them is skipped.
  const httpLogger = app.get<HttpLogger | undefined>(HTTP_LOGGER);
  if (typeof httpLogger === 'function') app.use(httpLogger);
  // Then, so every response is timed, also those answered before routing.
  app.use(createHttpMetricsMiddleware(app.get<Histogram<HttpLabel>>(getToken(HTTP_REQUEST_DURATION))));
  const loaded = app.get<ConfigType<typeof httpConfig> | undefined>(httpConfig.KEY);
  const config = Array.isArray(loaded?.corsOrigins) ? loaded : undefined;
  applyServerTimeouts(app.getHttpServer());
  // Whose X-Forwarded-For is believed for `req.ip` (the read limits' key): nobody's by default.
  app.set('trust proxy', config?.trustProxy ?? false);
  // Security headers (nosniff, frame-ancestors none, HSTS, no referrer, …). Its default CSP suits a
  // JSON API; an HTML page served later (Swagger UI at /api/docs) must load its scripts and
  // styles from this origin or get its own CSP (helmet's `contentSecurityPolicy` directives).
  app.use(helmet());
  // CORS is closed unless CORS_ORIGINS lists origins: no Access-Control-* header is ever sent then,
  // so browsers keep other sites' scripts from reading responses.
  if (config !== undefined && config.corsOrigins.length > 0) {
    app.enableCors({
      origin: [...config.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PUT'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  app.disable('x-powered-by');
  // Express's default weak ETag hashes every response body; blog responses set their own strong
  // ETag from the blog's version instead (BlogsController), which costs no hashing.
  app.set('etag', false);
  app.use(rewriteBlogPathAliases);
  app.setGlobalPrefix('api', { exclude: ['health/live', 'health/ready', 'metrics'] });
  app.enableVersioning({ type: VersioningType.URI });
  app.useGlobalInterceptors(new JsonBodyInterceptor());
  app.useGlobalPipes(...createGlobalPipes());
  app.useGlobalFilters(new AllExceptionsFilter(app.get(HttpAdapterHost)));
  // Built once here, from the decorators, after the prefix and versioning it depends on.
  serveOpenApiDocument(app, createOpenApiDocument(app));
  return app;
}

/** Sets {@link SERVER_TIMEOUTS} on the application's HTTP server. */
export function applyServerTimeouts(server: Server): void {
  server.headersTimeout = SERVER_TIMEOUTS.headersMs;
  server.requestTimeout = SERVER_TIMEOUTS.requestMs;
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveMs;
}
