// Rules kept: OAuth 2.1 4.1.1 and MCP "Authorization Code Protection" (PKCE REQUIRED: `code_challenge` on every
// request), RFC 7636 4.2 and 4.3 (S256 only here: `plain` offers nothing over no PKCE and is refused; an absent
// method means `plain`, so it is refused too), RFC 7636 4.2 (a S256 challenge is exactly 43 base64url characters).
import { isS256CodeChallenge, OAuthError, PKCE_METHOD_S256 } from '@portcullis/protocol';
import type { AuthorizationCheck } from '../authorization-check.js';

/** A S256 PKCE challenge is present and well formed. */
export const pkceCheck: AuthorizationCheck = {
  name: 'pkce',
  beforeRedirect: false,
  run(context) {
    const challenge = context.params.get('code_challenge');
    if (challenge === undefined) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE)');
    const method = context.params.get('code_challenge_method');
    if (method !== PKCE_METHOD_S256) {
      throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    }
    if (!isS256CodeChallenge(challenge)) {
      throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
    }
    context.codeChallenge = challenge;
  },
};
