/**
 * Rules kept here:
 * - RFC 9068 Section 2.2: an access token names its resource owner (`sub`) and its client (`client_id`); RFC 7662
 *   Section 2.2 carries the same members. Per-user data is keyed by `sub`, so a token without one is rejected
 *   rather than read with a default.
 * - RFC 6749 Section 3.3: `scope` is a space-separated list of scope-tokens; a malformed value is rejected, not
 *   read leniently, so "more scope than the string says" can never happen.
 */
import { parseScope } from '@portcullis/protocol';
import { invalidToken, type TokenCheck } from './token-check.js';

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/**
 * Rejects claims missing `sub` or `client_id`, or whose `scope` is not a valid scope string. Shared by JWT access
 * tokens and introspection responses.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-2.2 RFC 9068 Section 2.2}
 */
export const checkSubjectAndClient: TokenCheck = (claims) => {
  if (!nonEmptyString(claims['sub'])) throw invalidToken('The access token has no subject.');
  if (!nonEmptyString(claims['client_id'])) throw invalidToken('The access token has no client_id.');
  const { scope } = claims;
  if (scope === undefined) return;
  try {
    if (typeof scope !== 'string') throw new TypeError('scope is not a string');
    parseScope(scope);
  } catch {
    throw invalidToken('The access token has a malformed scope.');
  }
};
