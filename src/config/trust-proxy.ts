import { isIP } from 'node:net';

/**
 * Express `trust proxy`: `false` (the TCP peer is the client), `true` (the left-most
 * `X-Forwarded-For` address), a number of proxy hops, or the addresses, CIDR subnets and names
 * (`loopback`, `linklocal`, `uniquelocal`) of the proxies to trust.
 */
export type TrustProxy = boolean | number | readonly string[];

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isTrustedProxyItem(item: string): boolean {
  if (PROXY_NAMES.has(item)) return true;
  const [address, bits, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  if (!/^(0|[1-9][0-9]?|1[01][0-9]|12[0-8])$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** `TRUST_PROXY` → the Express setting, or undefined when the value is none of its forms. */
export function parseTrustProxy(value: string): TrustProxy | undefined {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^(0|[1-9][0-9]{0,1})$/.test(value)) return Number(value);
  const items = value.split(',').map((item) => item.trim());
  return items.length > 0 && items.every(isTrustedProxyItem) ? items : undefined;
}
