import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { WebhookAddressPolicy } from './webhook-address-policy';

/** The outcome of one POST to a webhook receiver. */
export interface WebhookAttemptResult {
  /** Whether a 2xx answer came within the timeout. */
  readonly ok: boolean;
  /** The answer's status, or null when none came (refused address, timeout, connection error). */
  readonly statusCode: number | null;
  /** Whole milliseconds from the start of the attempt to its outcome. */
  readonly durationMs: number;
  /** Null on success, else a short reason ("answered 500", "timed out after 10 s"), at most 200 characters. */
  readonly error: string | null;
}

/** Deadline of one attempt, connect and answer together, in milliseconds. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Bytes of an answer's body read before the connection is dropped. */
export const WEBHOOK_ANSWER_LIMIT_BYTES = 64 * 1024;

/** Short reasons for connection errors, by Node error code. */
const ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: "url's host does not resolve",
  EAI_AGAIN: "url's host does not resolve",
};

function reason(error: NodeJS.ErrnoException): string {
  if (error.code === 'EWEBHOOKADDRESS') return `address refused: ${error.message}`;
  return ERRORS[error.code ?? ''] ?? (error.code ? `connection failed (${error.code})` : error.message);
}

/** Delivers webhooks: one POST per call over `node:http`/`node:https`, addresses checked by the policy's `lookup`. */
export class WebhookSender {
  /** `timeoutMs` bounds each attempt as a whole (connect, request and answer). */
  constructor(
    private readonly policy: WebhookAddressPolicy,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {}

  /** POSTs `body` (JSON text) with `headers` to `url` without following redirects; never throws. */
  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<WebhookAttemptResult> {
    const started = performance.now();
    const result = (statusCode: number | null, error: string | null): WebhookAttemptResult => ({
      ok: error === null,
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error: error?.slice(0, 200) ?? null,
    });
    const refused = this.policy.urlRefusal(url);
    if (refused) return Promise.resolve(result(null, refused));

    return new Promise((resolve) => {
      let request: http.ClientRequest | undefined;
      const finish = (statusCode: number | null, error: string | null): void => {
        clearTimeout(timer);
        resolve(result(statusCode, error));
        request?.destroy();
      };
      // Past the deadline the status decides if it came; the rest of the answer is not waited for.
      let onDeadline = (): void => finish(null, `timed out after ${this.timeoutMs / 1000} s`);
      const timer = setTimeout(() => onDeadline(), this.timeoutMs);
      const target = new URL(url);
      try {
        request = (target.protocol === 'https:' ? https : http).request(target, {
          method: 'POST',
          agent: false,
          lookup: this.policy.lookup,
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
            'User-Agent': 'blog-service-webhooks',
          },
        });
      } catch (error) {
        return finish(null, `request not sent (${(error as NodeJS.ErrnoException).code ?? 'invalid'})`);
      }
      request.on('error', (error) => finish(null, reason(error)));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const error =
          status >= 200 && status < 300
            ? null
            : status >= 300 && status < 400
              ? `answered ${status} (redirects are not followed)`
              : `answered ${status}`;
        let read = 0;
        const done = (): void => finish(status, error);
        onDeadline = done;
        response.on('data', (chunk: Buffer) => (read += chunk.length) > WEBHOOK_ANSWER_LIMIT_BYTES && done());
        response.on('end', done);
        response.on('error', done);
      });
      request.end(body);
    });
  }
}
