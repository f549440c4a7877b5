/** A varnishd of a spec's own (varnish-server.js). */
export interface VarnishServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Starts it again on the same port, with an empty cache. */
  start(): Promise<void>;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
  /** SIGKILL, then waits for it to exit. */
  kill(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

export function startVarnish(options: {
  backendPort: number;
  backendHost?: string;
  port?: number;
  /** Added to varnishd's environment, e.g. `CACHE_PURGE_TOKEN`. */
  env?: Record<string, string>;
}): Promise<VarnishServer>;
export function varnishAvailable(): boolean;
/** Why the shipped VCL cannot run here (no varnishd, or no xkey module), or `undefined`. */
export function varnishUnavailableReason(): string | undefined;
export function vclFor(host: string, port: number): string;
export function freePort(): Promise<number>;
