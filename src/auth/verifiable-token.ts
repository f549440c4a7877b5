import { decode } from 'jsonwebtoken';

/**
 * Whether a compact JWS, not yet verified, may go on to verification: its header has no `crit`
 * (this service understands no extension, RFC 7515 §4.1.11) and its payload is a JSON object (a
 * JWT Claims Set, RFC 7519 §7.2; jsonwebtoken's `verify` throws a TypeError on `null`, a 500).
 */
export function isVerifiableToken(token: string): boolean {
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(token, { complete: true, json: true });
  } catch {
    return false;
  }
  if (decoded === null || 'crit' in decoded.header) return false;
  const { payload } = decoded;
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload);
}
