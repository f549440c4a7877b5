import type { INestApplication } from '@nestjs/common';
import { DiscoveryService, ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { applyEventSchemas } from '../events/event-openapi';
import { discoverEventResources } from '../events/event-registry';
import { applySchemaRules } from './schema-rules';

/** Where Swagger UI is served (outside the `/api/v1` routes, no token needed). */
const OPENAPI_UI_PATH = '/api/docs';
/** Where the OpenAPI document is served as JSON. */
const OPENAPI_JSON_PATH = '/api/docs-json';
/** Name of the bearer security scheme in `components.securitySchemes`. */
export const BEARER_SCHEME = 'bearer';

/**
 * Builds the OpenAPI 3 document of `app`, its event schemas from the registered event resources; call it after
 * `setGlobalPrefix` and `enableVersioning`.
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Blog service')
    .setDescription(
      'List, read, create, update and delete blog entries over JSON/HTTP. Writes need a bearer token (JWT, HS256); ' +
        'reads need one only when the service runs with `READS_REQUIRE_AUTH=true`. ' +
        '`/api/blogs…` and `/v1/blogs…` are aliases of the `/api/v1/blogs…` paths documented here. ' +
        'Every error is a problem details object (RFC 9457, `application/problem+json`) that keeps `statusCode`, ' +
        '`error` and `message`.\n\n' +
        'To try the writes here, press **Authorize** and paste a token (without `Bearer `): the one a development ' +
        "service logs at start-up when `JWT_SECRET` is not set, or, with the service's `JWT_SECRET` in the " +
        'environment, one from `npm run -s token -- --sub alice` (add `--scope blogs:admin` to change any blog). ' +
        'List and read need none unless the service runs with `READS_REQUIRE_AUTH=true`, and show no padlock; once ' +
        'authorized, they send the token too.',
    )
    .setVersion('1.0.0')
    .setLicense('UNLICENSED', 'https://spdx.org/licenses/')
    .addServer('/', 'This service')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'HS256 JWT with `sub` and `exp`; `scope` `blogs:admin` may update or delete any blog.',
      },
      BEARER_SCHEME,
    )
    .build();
  // From the modules' metadata, not their instances: preview mode (the OpenAPI CLI) makes none.
  const resources = discoverEventResources(new DiscoveryService(app.get(ModulesContainer))).map(
    ({ options }) => options,
  );
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: resources.flatMap(({ schemas }) => schemas),
  });
  applyEventSchemas(document, resources);
  applySchemaRules(document);
  return document;
}

/** What {@link optionalTokenUnlocked} reads of Swagger UI's operation props (an Immutable.js map). */
interface OperationProps {
  get(key: 'security'): { some(test: (requirement: { size: number }) => boolean): boolean } | undefined;
  set(key: 'security', value: undefined): OperationProps;
}

/**
 * A Swagger UI plugin, run in the browser (Nest serialises it with `toString`): an operation whose token is optional
 * (an empty security requirement, as reads have) shows no padlock, which Swagger UI draws only for `[{}]` alone.
 * Once authorized, "Try it out" still sends the token.
 */
function optionalTokenUnlocked(): object {
  return {
    wrapComponents: {
      OperationSummary:
        (Original: unknown, system: { React: { createElement(type: unknown, props: object): unknown } }) =>
        (props: { operationProps: OperationProps }) => {
          const optional = props.operationProps.get('security')?.some((requirement) => requirement.size === 0);
          const shown = optional
            ? { ...props, operationProps: props.operationProps.set('security', undefined) }
            : props;
          return system.React.createElement(Original, shown);
        },
    },
  };
}

/** Serves Swagger UI at {@link OPENAPI_UI_PATH} and the JSON at {@link OPENAPI_JSON_PATH}, outside Nest's guards. */
export function serveOpenApiDocument(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(OPENAPI_UI_PATH, app, document, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Blog service API',
    swaggerOptions: { plugins: [optionalTokenUnlocked] },
  });
}
