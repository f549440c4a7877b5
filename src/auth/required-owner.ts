import type { Principal } from './principal';

/** The owner a principal's write must match: none (any owner) when it holds `adminScope`, else its `sub`. */
export function requiredOwner(principal: Principal, adminScope: string): string | undefined {
  return principal.scopes.includes(adminScope) ? undefined : principal.sub;
}
