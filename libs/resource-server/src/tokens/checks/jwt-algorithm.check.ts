/**
 * Rules kept here:
 * - RFC 8725 Section 3.1: the algorithm comes from an allow-list, never from the token alone; `none` is never
 *   accepted (RFC 8725 Section 2.1), nor any `HS*` (a public key used as an HMAC secret, RFC 8725 Section 2.1).
 * - RFC 9068 Section 4: the resource server rejects a JWT access token whose `alg` is `none`.
 */
import { invalidToken, type TokenCheck } from './token-check.js';

/**
 * Rejects a JOSE header whose `alg` is not in the allow-list.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc8725#section-3.1 RFC 8725 Section 3.1}
 */
export const checkAlgorithm: TokenCheck = (header, { algorithms }) => {
  const { alg } = header;
  if (typeof alg !== 'string' || !algorithms.includes(alg)) {
    throw invalidToken('The access token is signed with an algorithm this resource does not accept.');
  }
};
