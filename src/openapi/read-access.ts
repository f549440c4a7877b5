import type { SecurityRequirementObject } from '@nestjs/swagger';
import { BEARER_SCHEME } from './openapi';

/** What a `@ReadAccess()` operation's description says about tokens. */
export const READ_ACCESS_NOTE =
  'No token needed, unless the service runs with `READS_REQUIRE_AUTH=true`: then a bearer token is required ' +
  '(401 without one).';

/** The security of a `@ReadAccess()` operation: an empty requirement makes the bearer token optional. */
export const OPTIONAL_BEARER: SecurityRequirementObject[] = [{}, { [BEARER_SCHEME]: [] }];
