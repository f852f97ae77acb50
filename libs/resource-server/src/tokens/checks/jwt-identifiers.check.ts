/**
 * Rules kept here:
 * - RFC 9068 Section 2.2: a JWT access token carries `iat` (a NumericDate) and `jti` (a unique identifier). Their
 *   absence means the token was not minted as an RFC 9068 access token, whatever else it looks like.
 */
import { invalidToken, type TokenCheck } from './token-check.js';

/**
 * Rejects JWT claims without a numeric `iat` or a non-empty `jti`.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-2.2 RFC 9068 Section 2.2}
 */
export const checkJwtIdentifiers: TokenCheck = (claims) => {
  if (typeof claims['iat'] !== 'number') throw invalidToken('The access token has no iat.');
  const { jti } = claims;
  if (typeof jti !== 'string' || jti.length === 0) throw invalidToken('The access token has no jti.');
};
