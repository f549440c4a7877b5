import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { JWT_CLOCK_TOLERANCE_SECONDS } from './jwt.constants';
import type { Principal } from './principal';

/** Most tokens remembered, and longest a token is trusted without a new signature check, in ms. */
export const VERIFIED_TOKENS = { max: 10_000, maxAgeMs: 60_000 } as const;

interface VerifiedToken {
  readonly principal: Principal;
  /** Epoch ms from which the token is no longer trusted: verification + maxAgeMs, or `exp` + clock tolerance. */
  readonly untilMs: number;
}

/**
 * Principals of recently verified bearer tokens, keyed by the exact token, so that a client's next requests skip the
 * signature check; an entry ends at the token's `exp` (RFC 7519 §4.1.4, with the clock tolerance) or after
 * {@link VERIFIED_TOKENS}`.maxAgeMs`, whichever comes first (docs/security.md, "Verified tokens").
 */
@Injectable()
export class VerifiedTokens {
  private readonly entries = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS.max });

  /** The principal of `token` if it was verified and is still trusted at `nowMs`, else undefined. */
  get(token: string, nowMs = Date.now()): Principal | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (nowMs < entry.untilMs) return entry.principal;
    this.entries.delete(token);
    return undefined;
  }

  /** Remembers `token`, just verified with `exp` (seconds since the epoch), as `principal`. */
  remember(token: string, principal: Principal, exp: number, nowMs = Date.now()): void {
    const untilMs = Math.min(nowMs + VERIFIED_TOKENS.maxAgeMs, (exp + JWT_CLOCK_TOLERANCE_SECONDS) * 1000);
    if (untilMs > nowMs) this.entries.set(token, { principal, untilMs });
  }
}
