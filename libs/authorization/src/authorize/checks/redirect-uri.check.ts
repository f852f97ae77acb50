// Rules kept: OAuth 2.1 2.3.1 and MCP "Open Redirection" (exact string match with a registered redirect URI, the
// one exception, RFC 8252 7.3 and OAuth 2.1 8.4.2, being any port on a registered http loopback URI: 127.0.0.1,
// [::1] or localhost, each standing only for itself); RFC 6749 4.1.2.1 (a missing, invalid or
// mismatching redirect URI is told to the user, never redirected to); RFC 6749 3.1.2.3 (`redirect_uri` may be
// omitted only when exactly one is registered). Matching is `redirectUriMatches` of the protocol lib: no
// normalisation, so `/cb/../x`, `%63b`, `:443`, `HTTPS:`, a trailing `/`, `?x=1`, `#f` and `localhost` for
// `127.0.0.1` all fail.
import { OAuthError, redirectUriMatches } from '@portcullis/protocol';
import { established, type AuthorizationCheck } from '../authorization-check.js';

/** The redirect URI is present once and exactly one the client registered. */
export const redirectUriCheck: AuthorizationCheck = {
  name: 'redirect-uri',
  beforeRedirect: true,
  run(context) {
    const client = established(context, 'client');
    if (context.params.repeated.includes('redirect_uri')) {
      throw new OAuthError('invalid_request', 'redirect_uri sent more than once');
    }
    const requested = context.params.get('redirect_uri');
    if (requested === undefined) {
      const [only, ...others] = client.redirectUris;
      if (only === undefined || others.length > 0)
        throw new OAuthError('invalid_request', 'redirect_uri is required');
      context.redirectUri = only;
      context.redirectUriSent = false;
      return;
    }
    if (!redirectUriMatches(client.redirectUris, requested)) {
      throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
    }
    context.redirectUri = requested;
    context.redirectUriSent = true;
  },
};
