/**
 * The shape every bearer token must have before anything else looks at it.
 *
 * Rules kept here:
 * - RFC 6750 Section 2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
 * - A length bound, so a 10 KiB blob is refused before it is split, decoded or hashed (RFC 8725 Section 3.9
 *   asks for limits on what is parsed; it also bounds the cache key's input).
 * - A JWT (RFC 7519 Section 3, JWS Compact Serialization, RFC 7515 Section 7.1) is exactly three segments; the
 *   caller decides with {@link looksLikeJwt} whether a token is a JWT candidate or an opaque token.
 */
import { invalidToken } from './token-check.js';

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Rejects a token that is not an RFC 6750 `b64token` or is longer than `maxLength`.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 */
export function checkTokenShape(token: string, maxLength: number): void {
  checkTokenLength(token, maxLength);
  if (!B64TOKEN.test(token)) throw invalidToken('The access token is not a valid bearer token.');
}

/**
 * The length bound of {@link checkTokenShape} alone, for a token whose `b64token` syntax was checked where it was read.
 *
 * @throws OAuthError `invalid_token`
 */
export function checkTokenLength(token: string, maxLength: number): void {
  if (token.length > maxLength) throw invalidToken('The access token is too long.');
}

/**
 * Whether the token has the three segments of a JWS compact serialization (two dots). Anything else is treated as
 * an opaque token.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7515#section-7.1 RFC 7515 Section 7.1}
 */
export function looksLikeJwt(token: string): boolean {
  let dots = 0;
  for (const char of token) if (char === '.') dots += 1;
  return dots === 2;
}
