import { ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
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
import type { Principal } from '../auth/principal';
import { rateLimitConfig, RateLimitConfig } from '../config/rate-limit.config';
import { READS_THROTTLER, WRITES_THROTTLER } from './rate-limit.constants';

// RFC 9110 §9.2.1 safe methods count as reads; every other method is a write.
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

// Probes and the metrics scrape keep working while a client is limited (any letter case, as Express routes).
const EXEMPT_PATH = /^\/(health\/(live|ready)|metrics)\/?$/i;

const STORAGE_WARNING_INTERVAL_MS = 10_000;

/**
 * Global guard, after `JwtAuthGuard`: reads per client address (`req.ip`), writes per token `sub`;
 * over budget, 429 with `Retry-After` in seconds (RFC 9110 §10.2.3). A failing storage lets requests through.
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
    @Inject(rateLimitConfig.KEY) config: ConfigType<typeof rateLimitConfig>,
  ) {
    super(options, storage, reflector);
    this.limits = config;
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

/** Whose budget a request spends: a write its token subject's, a read its client address's (IPv6 by /64). */
export function trackerOf(request: Record<string, unknown>): string {
  const principal = request.user as Principal | undefined;
  if (request.method !== undefined && !SAFE_METHODS.has(request.method as string) && principal?.sub !== undefined) {
    return `sub:${principal.sub}`;
  }
  return clientAddressOf(request);
}

/** A request's client address as its read budget and its share of the slow lane know it: `ip:<address>`, IPv6 by /64. */
export function clientAddressOf(request: { readonly ip?: unknown }): string {
  return `ip:${normalizeIp(String(request.ip), DEFAULT_IPV6_SUBNET_PREFIX)}`;
}
