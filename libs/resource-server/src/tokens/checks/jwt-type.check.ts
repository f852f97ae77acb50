/**
 * Rules kept here:
 * - RFC 9068 Sections 2.1 and 4: a JWT access token has `typ` `at+jwt` (or `application/at+jwt`, RFC 7515
 *   Section 4.1.9 lets the `application/` prefix be dropped, and media types compare case-insensitively), and the
 *   resource server rejects any other `typ`. This is what keeps an ID token, or any other JWT the same
 *   authorization server signed, from being replayed as an access token (RFC 8725 Section 3.11).
 */
import { invalidToken, type TokenCheck } from './token-check.js';

/**
 * Rejects a JOSE header whose `typ` is not `at+jwt`.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-4 RFC 9068 Section 4}
 */
export const checkAccessTokenType: TokenCheck = (header) => {
  const { typ } = header;
  const normalised = typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;
  if (normalised !== 'at+jwt')
    throw invalidToken('The token is not a JWT access token (typ must be at+jwt).');
};
