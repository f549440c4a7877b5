import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import { authConfig } from '../config/auth.config';
import { cacheConfig } from '../config/cache.config';
import { ReadReplicas } from '../database/read-replicas';

/** `Cache-Control` of every answer that is not public: no cache, shared or private, keeps it (RFC 9111 §5.2.2.5). */
export const NOT_STORED = 'no-store';

/**
 * Header of public answers read while replicas serve reads: how far behind the primary the read can be, in ms. The
 * shipped VCL counts the fetch as begun that much earlier, and strips the header (docs/architecture.md, "Shared caches").
 */
export const READ_LAG_BOUND = 'Read-Lag-Bound';

/** Express middleware: every answer starts as {@link NOT_STORED}; {@link SharedCache.keep} makes a read public. */
export function notStoredByDefault(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Cache-Control', NOT_STORED);
  next();
}

/**
 * Which answers shared caches may keep (docs/api.md, "Caching"): a public read (no `Authorization` header, reads open
 * to all) gets `Cache-Control: public, max-age=…, s-maxage=…`, its `Surrogate-Key`s and `Vary: Authorization`.
 */
@Injectable()
export class SharedCache {
  /** The public answers' `Cache-Control`, or undefined when reads need a token (then nothing is public). */
  private readonly cacheControl: string | undefined;
  private readonly keyed: boolean;
  private readonly lagBoundMs: number;

  constructor(
    @Inject(cacheConfig.KEY) cache: ConfigType<typeof cacheConfig>,
    @Inject(authConfig.KEY) auth: ConfigType<typeof authConfig>,
    replicas: ReadReplicas,
  ) {
    this.keyed = cache.sharedMaxAge > 0;
    this.lagBoundMs = replicas.lagBoundMs;
    this.cacheControl = auth.readsRequireAuth
      ? undefined
      : this.keyed
        ? `public, max-age=${cache.maxAge}, s-maxage=${cache.sharedMaxAge}`
        : 'no-cache';
  }

  /**
   * Marks the 200 (or 304) answer to `request`, a read, as public with `keys` (space-separated) and, while replicas
   * serve reads, {@link READ_LAG_BOUND}; not when the request has an `Authorization` header, valid or not. An error
   * answered later is {@link NOT_STORED} again.
   */
  keep(request: Request, response: Response, keys: string): void {
    if (this.cacheControl === undefined || request.headers.authorization !== undefined) return;
    response.setHeader('Cache-Control', this.cacheControl);
    if (this.keyed) response.setHeader('Surrogate-Key', keys);
    if (this.keyed && this.lagBoundMs > 0) response.setHeader(READ_LAG_BOUND, String(this.lagBoundMs));
    response.vary('Authorization');
  }
}
