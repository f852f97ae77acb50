// Rules kept: OAuth 2.1 2.3.1 and MCP "Open Redirection" (exact string match with a registered redirect URI, the
// one exception, RFC 8252 7.3 and OAuth 2.1 8.4.2, being any port on a registered http loopback URI: 127.0.0.1,
// [::1] or localhost, each standing only for itself); RFC 6749 4.1.2.1 (a missing, invalid or
// mismatching redirect URI is told to the user, never redirected to); RFC 6749 3.1.2.3 (`redirect_uri` may be
// omitted only when exactly one is registered). Matching is `redirectUriMatches` of the protocol lib: no
// normalisation, so `/cb/../x`, `%63b`, `:443`, `HTTPS:`, a trailing `/`, `?x=1`, `#f` and `localhost` for
// `127.0.0.1` all fail. And the redirect URI must still be of a kind the server accepts now (RFC 8252 7: https,
// loopback, or a private-use scheme `ALLOWED_REDIRECT_SCHEMES` names): a scheme the operator stopped allowing stops
// the clients registered with it too, never answered by a redirect there.
import { redirectUriKind } from '@portcullis/metadata';
import { OAuthError, redirectUriMatches } from '@portcullis/protocol';
import {
  established,
  type AuthorizationCheck,
  type AuthorizationCheckContext,
} from '../authorization-check.js';

/**
 * The redirect URI is present once, exactly one the client registered, and of a kind this server accepts.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7
 */
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
      stillAccepted(context, only);
      context.redirectUri = only;
      context.redirectUriSent = false;
      return;
    }
    if (!redirectUriMatches(client.redirectUris, requested)) {
      throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
    }
    stillAccepted(context, requested);
    context.redirectUri = requested;
    context.redirectUriSent = true;
  },
};

/** Refuses a registered redirect URI of a kind the server no longer accepts (a private-use scheme since removed). */
function stillAccepted(context: AuthorizationCheckContext, uri: string): void {
  if (redirectUriKind(uri, context.allowedRedirectSchemes) === undefined) {
    throw new OAuthError(
      'invalid_request',
      'redirect_uri is registered, but this server no longer accepts redirect URIs of its scheme',
    );
  }
}
