/**
 * Rules kept here:
 * - RFC 9068 Section 4: `iss` exactly matches the issuer identifier of an authorization server this resource
 *   trusts (simple string comparison, RFC 8414 Section 2); a token from any other issuer is rejected even when it
 *   is signed with a key the resource would otherwise accept.
 */
import { invalidToken, type TokenCheck } from './token-check.js';

/**
 * Rejects claims whose `iss` is not one of the trusted issuers.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-4 RFC 9068 Section 4}
 */
export const checkIssuer: TokenCheck = (claims, { issuers }) => {
  const { iss } = claims;
  if (typeof iss !== 'string' || !issuers.includes(iss)) {
    throw invalidToken('The access token was not issued by an authorization server this resource trusts.');
  }
};
