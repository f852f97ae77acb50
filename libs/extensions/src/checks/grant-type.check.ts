// Rule: what an extension may register as a grant type (RFC 6749 sections 4.5 and A.10, RFC 9700 section 2.4).
// - A grant type is a grant-name (1*name-char: ALPHA, DIGIT, "-", ".", "_"), the form of the registered names
//   such as `client_credentials`, or an absolute URI, the form RFC 6749 section 4.5 asks of extension grants
//   (e.g. `urn:ietf:params:oauth:grant-type:jwt-bearer`).
// - `authorization_code` and `refresh_token` belong to the host: the MCP authorization flow is built on them, and
//   an extension replacing them would bypass PKCE, resource binding and refresh token rotation.
// - `password` is never registered: the resource owner password credentials grant MUST NOT be used
//   (RFC 9700 section 2.4; OAuth 2.1 removes it).

const GRANT_NAME = /^[A-Za-z0-9._-]+$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// A URI is visible ASCII only: no space, no control character, nothing beyond ASCII (RFC 3986 section 2).
const VISIBLE_ASCII = /^[\u0021-\u007e]+$/;

/**
 * Grant types an extension can never register: the host's own and the ones OAuth forbids.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-2.4
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 */
export const RESERVED_GRANT_TYPES: ReadonlySet<string> = new Set([
  'authorization_code',
  'refresh_token',
  'password',
]);

/**
 * Whether `name` has the syntax of a `grant_type` value: a grant-name or an absolute URI.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#appendix-A.10
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export function isGrantTypeName(name: string): boolean {
  if (GRANT_NAME.test(name)) return true;
  return URI_SCHEME.test(name) && VISIBLE_ASCII.test(name) && URL.canParse(name);
}
