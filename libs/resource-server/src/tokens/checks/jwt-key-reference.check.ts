/**
 * Rules kept here:
 * - RFC 8725 Section 3.10: a token never chooses where its verification key comes from. A JOSE header carrying its
 *   own key (`jwk`, `x5c`, RFC 7515 Sections 4.1.3 and 4.1.6) or a URL to fetch one from (`jku`, `x5u`, Sections
 *   4.1.2 and 4.1.5) is refused before anything is fetched: the keys come only from the trusted issuer's `jwks_uri`
 *   (RFC 9068 Section 4), and an authorization server has no reason to name them in an access token. Such a header
 *   is the shape of a forgery (a key the attacker made, a key set the attacker serves) and, if followed, of a
 *   server-side request forgery.
 * - RFC 7515 Section 4.1.4: `kid`, when present, is a string.
 */
import { invalidToken, type TokenCheck } from './token-check.js';

const KEY_SOURCE_PARAMETERS = ['jwk', 'jku', 'x5c', 'x5u'] as const;

/**
 * Rejects a JOSE header that names its own key or key location, or whose `kid` is not a string.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc8725#section-3.10 RFC 8725 Section 3.10}
 */
export const checkKeyReference: TokenCheck = (header) => {
  const named = KEY_SOURCE_PARAMETERS.find((parameter) => header[parameter] !== undefined);
  if (named) {
    throw invalidToken(`The access token names its own key (${named}); its keys come only from the issuer.`);
  }
  if (header['kid'] !== undefined && typeof header['kid'] !== 'string') {
    throw invalidToken('The access token kid is not a string.');
  }
};
