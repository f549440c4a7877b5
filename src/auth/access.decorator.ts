import { SetMetadata } from '@nestjs/common';

/** Metadata key of the access policy of a route (read by {@link JwtAuthGuard}). */
export const ACCESS_POLICY_KEY = 'accessPolicy';

/** How a route is protected; without a policy it needs a valid bearer token. */
export type AccessPolicy = 'public' | 'read';

/** The route never needs a token. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_POLICY_KEY, 'public');

/** A read route: it needs a token only when `READS_REQUIRE_AUTH=true`. */
export const ReadAccess = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_POLICY_KEY, 'read');
