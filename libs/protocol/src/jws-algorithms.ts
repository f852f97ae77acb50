// Rule kept: RFC 8725 3.1 and 3.2: a JWT is verified only with an algorithm from a fixed list chosen by the
// verifier, never `none`, and never an HMAC (whose secret an attacker could take to be a public key). These are the
// asymmetric JWS algorithms of RFC 7518 3.1 (ECDSA, RSASSA-PSS, RSASSA-PKCS1-v1_5) and RFC 8037 3.1 (EdDSA).

/**
 * The asymmetric JWS algorithms a Portcullis verifier accepts: for client assertions (RFC 7523), identity
 * assertion grants and access tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8725#section-3.1
 */
export const ASYMMETRIC_SIGNING_ALGORITHMS = Object.freeze([
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
] as const);
