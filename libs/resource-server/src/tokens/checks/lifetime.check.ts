/**
 * Rules kept here:
 * - RFC 9068 Sections 2.2 and 4: `exp` is required and the token is rejected once it has passed; OAuth 2.1
 *   Section 5.2 and MCP "Token Handling": an expired token is `invalid_token` (401).
 * - RFC 7519 Sections 4.1.4 and 4.1.5: "some small leeway" for clock skew on `exp` and `nbf`; a token used
 *   before `nbf` is rejected.
 * - RFC 7519 Section 4.1.6: `iat` is a NumericDate; a token issued in the future (beyond the leeway) is not
 *   trusted either.
 */
import { invalidToken, type TokenCheck } from './token-check.js';

function numericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Rejects claims without `exp`, after `exp`, before `nbf` or with `iat` in the future, allowing the configured
 * clock skew.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc7519#section-4.1.4 RFC 7519 Section 4.1.4}
 */
export const checkLifetime: TokenCheck = (claims, { now, clockSkewSeconds }) => {
  const { exp, nbf, iat } = claims;
  if (!numericDate(exp)) throw invalidToken('The access token has no expiry.');
  if (exp <= now - clockSkewSeconds) throw invalidToken('The access token has expired.');
  if (nbf !== undefined && (!numericDate(nbf) || nbf > now + clockSkewSeconds)) {
    throw invalidToken('The access token is not valid yet.');
  }
  if (iat !== undefined && (!numericDate(iat) || iat > now + clockSkewSeconds)) {
    throw invalidToken('The access token was issued in the future.');
  }
};
