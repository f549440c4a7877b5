import { decode } from 'jsonwebtoken';

/**
 * Whether an unverified compact JWS may go on to verification: no `crit` header (RFC 7515 §4.1.11)
 * and a JSON object payload (RFC 7519 §7.2).
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
