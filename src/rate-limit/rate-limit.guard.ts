import { ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  DEFAULT_IPV6_SUBNET_PREFIX,
  InjectThrottlerOptions,
  normalizeIp,
  InjectThrottlerStorage,
  ThrottlerException,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { appConfig, AppConfigType } from '../config/app.config';
import type { RateLimitConfig } from '../config/environment';
import type { Principal } from '../auth/principal';

/** Names of the two budgets (also part of their storage keys). */
export const READS_THROTTLER = 'reads';
export const WRITES_THROTTLER = 'writes';

/** Methods that only read (RFC 9110 §9.2.1 "safe"); every other method counts as a write. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Paths never limited: the orchestrator's probes and the metrics scrape must keep working when a
 * client is being limited (matched in any letter case, as Express routes them).
 */
const EXEMPT_PATH = /^\/(health\/(live|ready)|metrics)\/?$/i;

/** Shortest pause between two "rate-limit storage unavailable" warnings, in milliseconds. */
const STORAGE_WARNING_INTERVAL_MS = 10_000;

/**
 * Global guard (after `JwtAuthGuard`, so a write's principal is known) that applies the abuse
 * limits of `RateLimitConfig`: reads per client address (`req.ip`, which honours `TRUST_PROXY`),
 * writes per token `sub`. Over the budget: 429 Too Many Requests with `Retry-After` (seconds,
 * RFC 9110 §10.2.3) and the contract's error body. Exactly one budget is looked up per request
 * and no route metadata is read (unlike ThrottlerGuard's `@Throttle`/`@SkipThrottle` lookups).
 *
 * When the storage fails (Redis down), the request is let through and a warning logged: the
 * limits protect the service; they must not take it down.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly rateLimitLogger = new Logger('RateLimit');
  private readonly limits: RateLimitConfig;
  private lastStorageWarning = 0;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(appConfig.KEY) config: AppConfigType,
  ) {
    super(options, storage, reflector);
    this.limits = config.rateLimit;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.limits.enabled) return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (EXEMPT_PATH.test(request.path)) return true;
    const throttler = this.throttlerFor(SAFE_METHODS.has(request.method) ? READS_THROTTLER : WRITES_THROTTLER);
    const ttl = throttler.ttl as number;
    try {
      return await this.handleRequest({
        context,
        limit: throttler.limit as number,
        ttl,
        blockDuration: ttl,
        throttler,
        getTracker: throttler.getTracker ?? trackerOf,
        generateKey: (_context, tracker, name) => `${name}:${tracker}`,
      });
    } catch (error) {
      if (error instanceof ThrottlerException) throw error;
      this.warnStorageUnavailable(error);
      return true;
    }
  }

  /** Sets `Retry-After` (whole seconds until the block ends), then throws the 429. */
  protected override throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    const seconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    response.setHeader('Retry-After', String(seconds));
    return Promise.reject(new ThrottlerException(`Too many requests; retry after ${seconds} s`));
  }

  private throttlerFor(name: string): ThrottlerOptions {
    const throttler = this.throttlers.find((t) => t.name === name);
    if (throttler === undefined) throw new Error(`rate limit "${name}" is not configured`);
    return throttler;
  }

  private warnStorageUnavailable(error: unknown): void {
    const now = Date.now();
    if (now - this.lastStorageWarning < STORAGE_WARNING_INTERVAL_MS) return;
    this.lastStorageWarning = now;
    const message = error instanceof Error ? error.message : String(error);
    this.rateLimitLogger.warn(`Rate-limit storage unavailable, requests are not limited meanwhile: ${message}`);
  }
}

/**
 * Whose budget a request spends: a write spends its token subject's (set as `request.user` by
 * `JwtAuthGuard`, which runs first), a read its client address's — an IPv6 address by its /64
 * subnet, as one host usually holds a whole /64 (ThrottlerGuard's own default).
 */
export function trackerOf(request: Record<string, unknown>): string {
  const principal = request.user as Principal | undefined;
  if (request.method !== undefined && !SAFE_METHODS.has(request.method as string) && principal?.sub !== undefined) {
    return `sub:${principal.sub}`;
  }
  return `ip:${normalizeIp(String(request.ip), DEFAULT_IPV6_SUBNET_PREFIX)}`;
}
