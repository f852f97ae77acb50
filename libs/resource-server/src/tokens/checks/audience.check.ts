/**
 * Rules kept here:
 * - MCP "Token Handling" and "Access Token Privilege Restriction", RFC 8707 Section 2, RFC 9068 Section 4: `aud`
 *   contains this resource's canonical URI, compared as an exact string. No normalisation: `http://host/mcp/`,
 *   `http://host` and `HTTP://host/mcp` are other audiences, and a token for them is not verifiably meant for this
 *   resource.
 * - RFC 7519 Section 4.1.3: `aud` is a string or an array of strings; any other shape is rejected.
 * - RFC 7662 Section 2.2: an introspection response carries `aud` in the same form, and the same rule applies.
 */
import { invalidToken, type TokenCheck, type TokenFields } from './token-check.js';

/** The audiences a token names, or `undefined` when `aud` is missing or malformed. */
export function audiencesOf(fields: TokenFields): string[] | undefined {
  const { aud } = fields;
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud) && aud.length > 0 && aud.every((value) => typeof value === 'string'))
    return [...aud];
  return undefined;
}

/**
 * Rejects claims whose `aud` does not contain this resource's canonical URI.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc8707#section-2 RFC 8707 Section 2}
 */
export const checkAudience: TokenCheck = (claims, { resource }) => {
  const audiences = audiencesOf(claims);
  if (audiences === undefined || !audiences.includes(resource)) {
    throw invalidToken('The access token was not issued for this resource.');
  }
};
