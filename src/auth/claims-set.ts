import { decode } from 'jsonwebtoken';

/**
 * Whether the payload of a compact JWS decodes to a JSON object, as a JWT Claims Set must
 * (RFC 7519 §7.2, step 10). Checked before the signature: jsonwebtoken's `verify` throws a
 * TypeError, outside passport's error path, on a correctly signed payload such as `null`, and that
 * would surface as a 500 instead of the 401 a bad token gets.
 *
 * @param token - the b64token of a `Bearer` header, not yet verified.
 */
export function hasObjectClaimsSet(token: string): boolean {
  let payload: unknown;
  try {
    payload = decode(token, { json: true });
  } catch {
    return false;
  }
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload);
}
