import type { SecurityRequirementObject } from '@nestjs/swagger';
import { BEARER_SCHEME } from './openapi';

/** What a `@ReadAccess()` operation's description says about tokens. */
export const READ_ACCESS_NOTE =
  'No token needed, unless the service runs with `READS_REQUIRE_AUTH=true`: then a bearer token is required ' +
  '(401 without one).';

/** The security of a `@ReadAccess()` operation: an empty requirement makes the bearer token optional. */
export const OPTIONAL_BEARER: SecurityRequirementObject[] = [{}, { [BEARER_SCHEME]: [] }];

/**
 * The response headers of a public read (docs/api.md, "Caching"): what a shared cache may keep, and under which
 * `Surrogate-Key`s (`example`) it is purged.
 */
export function publicReadHeaders(keys: string): Record<string, { description: string; schema: object }> {
  return {
    'Cache-Control': {
      description:
        'Without `Authorization` (reads open to all): `public, max-age=<CACHE_MAX_AGE>, ' +
        's-maxage=<CACHE_SHARED_MAX_AGE>` (`no-cache` when shared caching is off); with it: `no-store`.',
      schema: { type: 'string', example: 'public, max-age=0, s-maxage=86400' },
    },
    'Surrogate-Key': {
      description: 'Public answers only: the space-separated keys under which caches are purged after a change.',
      schema: { type: 'string', example: keys },
    },
  };
}
