import { SetMetadata } from '@nestjs/common';

/** Metadata key of the access policy of a route (read by {@link JwtAuthGuard}). */
export const ACCESS_POLICY_KEY = 'accessPolicy';

/**
 * How a route is protected. Routes without a policy need a valid bearer token.
 * - `public`: never needs a token (health checks).
 * - `read`: needs a token only when `READS_REQUIRE_AUTH=true`.
 */
export type AccessPolicy = 'public' | 'read';

/** The route never needs a token; its `Authorization` header is ignored. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_POLICY_KEY, 'public');

/** A read route: it needs a token only when `READS_REQUIRE_AUTH=true`, else the header is ignored. */
export const ReadAccess = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_POLICY_KEY, 'read');
