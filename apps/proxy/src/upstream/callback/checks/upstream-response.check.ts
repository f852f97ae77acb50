// Rules kept: RFC 9207 2.4 (the response's `iss` equals the upstream's issuer when it advertises
// `authorization_response_iss_parameter_supported`, and an error response with a wrong `iss` is not acted on);
// RFC 7636 (the code is redeemed with the verifier of this sign-in); OIDC Core 3.1.3.7 (the ID token is signed by
// the upstream, for the proxy's client ID, with this sign-in's `nonce`); the MCP specification's "Token Passthrough"
// (the upstream's tokens are kept by the proxy, never passed on). All of it through openid-client, within
// UPSTREAM_TIMEOUT_MS. A response that does not verify as the upstream's (wrong or missing `iss`) is a refused
// sign-in (400), not an upstream outage.
import { isUnverifiedAuthorizationResponse } from '../../upstream.error.js';
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The upstream's answer verifies and its code redeems into tokens naming the signed-in person. */
export const upstreamResponseCheck: CallbackCheck = {
  name: 'upstream-response',
  async run(context) {
    const signIn = established(context, 'signIn');
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(context.params.entries())) query.set(name, value);
    try {
      context.result = await established(context, 'upstream').signIn(query, {
        state: established(context, 'state'),
        codeVerifier: signIn.codeVerifier,
        ...(signIn.nonce ? { nonce: signIn.nonce } : {}),
      });
    } catch (error) {
      if (isUnverifiedAuthorizationResponse(error)) {
        throw new CallbackRejection(
          400,
          'This sign-in response did not come from the sign-in service it was sent to.',
        );
      }
      throw error;
    }
  },
};
