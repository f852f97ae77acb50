// Rule: extension token claims never override the registered ones (RFC 7519 section 4.1, RFC 9068 section 2.2).
// - `iss`, `sub`, `aud`, `exp`, `nbf`, `iat`, `jti` (RFC 7519 section 4.1) and `client_id`, `scope`,
//   `auth_time`, `acr`, `amr` (RFC 9068 sections 2.2 and 2.2.1) are set by the host alone: they carry the
//   token's issuer, subject, audience binding, lifetime, identity and authority, which every resource server
//   relies on.
// - `cnf` (RFC 7800 section 3.1; RFC 9449 section 6.1) is the key a sender-constrained token is bound to: the host
//   sets it from the verified proof of possession, never an extension's claims.
// - The registry enforces it on every call of `tokenClaims(context)`, because claims are computed per token and
//   cannot be known when extensions are composed.

/**
 * Access token claims an extension can never set.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-4.1
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 * @see https://www.rfc-editor.org/rfc/rfc7800#section-3.1
 */
export const RESERVED_TOKEN_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'client_id',
  'scope',
  'auth_time',
  'acr',
  'amr',
  'cnf',
]);
