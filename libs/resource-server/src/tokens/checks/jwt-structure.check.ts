/**
 * Decoding a JWT access token's header and claims, with nothing verified yet, so the cheap rules run before any
 * key is fetched or any signature computed.
 *
 * Rules kept here:
 * - RFC 7515 Section 7.1: three base64url segments (no padding, RFC 7515 Section 2), the last one non-empty (an
 *   empty signature is an unsecured JWT, RFC 7519 Section 6, never accepted).
 * - RFC 7519 Section 7.2 (steps 1-10): the header and the claims set are JSON objects.
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { invalidToken, type TokenFields } from './token-check.js';

const BASE64URL_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** A JWT split into its decoded, unverified header and claims. */
export interface DecodedJwt {
  readonly header: TokenFields;
  readonly claims: TokenFields;
}

/**
 * Decodes the header and claims of a compact JWS, refusing anything that is not three base64url segments with a
 * JSON object header and claims set.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc7519#section-7.2 RFC 7519 Section 7.2}
 */
export function decodeJwtStructure(token: string): DecodedJwt {
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every((segment) => BASE64URL_SEGMENT.test(segment))) {
    throw invalidToken('The access token is not a signed JWT.');
  }
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch {
    throw invalidToken('The access token is not a well-formed JWT.');
  }
}
