import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { describeFailure } from '../common/describe-failure';
import { cacheConfig } from '../config/cache.config';

/** Deadline of one purge request, connect and answer together, in ms. */
export const PURGE_TIMEOUT_MS = 5_000;

/** Longest `Surrogate-Key` value of one purge request, in characters: within Varnish's 8 KiB header line limit. */
export const PURGE_KEYS_LENGTH = 4_000;

/** The outcome of {@link CachePurger.purge}: requests answered 2xx, and the reason of the first that was not. */
export interface PurgeResult {
  readonly sent: number;
  /** Null when every request was answered 2xx; else a short reason ("answered 503", "connection refused"). */
  readonly error: string | null;
}

/** `keys` joined with spaces, in values of at most {@link PURGE_KEYS_LENGTH} characters (a longer key alone). */
export function keyLines(keys: readonly string[]): string[] {
  const lines: string[] = [];
  let line = '';
  for (const key of keys) {
    if (line !== '' && line.length + 1 + key.length > PURGE_KEYS_LENGTH) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? key : `${line} ${key}`;
  }
  return line === '' ? lines : [...lines, line];
}

/**
 * Purges by key: `PURGE <url>` with the keys, space-separated, in `Surrogate-Key` (the shipped Varnish configuration
 * hands them to `xkey.purge`), and `Authorization: Bearer <CACHE_PURGE_TOKEN>` when set; redirects are not followed.
 */
@Injectable()
export class CachePurger {
  private readonly headers: Record<string, string>;

  constructor(@Inject(cacheConfig.KEY) config: ConfigType<typeof cacheConfig>) {
    this.headers = {
      'User-Agent': 'blog-service-purge',
      ...(config.purgeToken === undefined ? {} : { Authorization: `Bearer ${config.purgeToken}` }),
    };
  }

  /** Purges `keys` from the cache at `url`, one request per {@link keyLines} value, stopping at the first refusal. */
  async purge(url: string, keys: readonly string[]): Promise<PurgeResult> {
    let sent = 0;
    for (const line of keyLines(keys)) {
      const error = await this.request(url, line);
      if (error !== null) return { sent, error };
      sent += 1;
    }
    return { sent, error: null };
  }

  private async request(url: string, keys: string): Promise<string | null> {
    try {
      const response = await fetch(url, {
        method: 'PURGE',
        headers: { ...this.headers, 'Surrogate-Key': keys },
        redirect: 'manual',
        signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
      });
      await response.body?.cancel();
      return response.ok ? null : `answered ${response.status}`;
    } catch (error) {
      // fetch rejects with "fetch failed"; the connection's error (ECONNREFUSED, …) is its cause.
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const reason = typeof cause?.code === 'string' ? cause.code : describeFailure(cause ?? error);
      return String(reason).slice(0, 200);
    }
  }
}
