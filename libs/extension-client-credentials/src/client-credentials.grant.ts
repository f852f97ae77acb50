// Rules kept (RFC 6749 4.4 and 5.2; MCP SEP-1046,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx):
// - Only confidential clients: a client that did not authenticate (`none`) is `invalid_client` (RFC 6749 4.4:
//   "MUST only be used by confidential clients"; 5.2: "no client authentication included").
// - The client acts for itself: the token's `sub` is its client id; its audience the requested `resource`
//   (RFC 8707 2, through the host's resource policy).
// - Scope: every requested value must be among the client's registered `scope` (RFC 7591 2), when it has one;
//   without `scope`, the registered scope is the default (RFC 6749 3.3). `openid`, `profile`, `email` and
//   `offline_access` are refused: there is no end-user to identify or describe and no refresh token to grant (OIDC
//   Core 3.1.2.1 and 5.4, RFC 6749 4.4.3).
// - No refresh token (RFC 6749 4.4.3).
// Every check runs before the host is asked to mint anything.

import type { GrantContext, GrantHandler, GrantRequest, TokenResponse } from '@portcullis/extensions';
import { OAuthError, parseScope } from '@portcullis/protocol';

/**
 * The grant type of RFC 6749 4.4.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2
 */
export const CLIENT_CREDENTIALS_GRANT = 'client_credentials';

/**
 * Scopes that name an end-user (OpenID Connect's `openid` and its claim scopes, OIDC Core 5.4) or a refresh token,
 * neither of which a client credentials grant has.
 */
const USER_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'offline_access'];

/**
 * The scopes a client may be issued: its registered `scope` metadata (RFC 7591 2), or `undefined` when it has
 * none (then the host's resource policy alone decides).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export function registeredScope(metadata: Readonly<Record<string, unknown>>): string[] | undefined {
  const scope = metadata['scope'];
  if (typeof scope !== 'string' || scope.trim() === '') return undefined;
  return scope.split(' ').filter((token) => token !== '');
}

/**
 * The scope values to issue for a client credentials request, checked against the client's registration.
 *
 * @throws OAuthError `invalid_scope`
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.3
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2
 */
export function clientCredentialsScope(
  requestedScope: string | undefined,
  allowed: readonly string[] | undefined,
): string[] {
  const requested = parseScope(requestedScope);
  const user = requested.filter((scope) => USER_SCOPES.includes(scope));
  if (user.length > 0) {
    throw new OAuthError(
      'invalid_scope',
      `${user.join(' ')} cannot be granted to a client acting for itself (no end-user, no refresh token)`,
    );
  }
  if (allowed === undefined) return requested;
  if (requested.length === 0) return [...allowed];
  const outside = requested.filter((scope) => !allowed.includes(scope));
  if (outside.length > 0) {
    throw new OAuthError('invalid_scope', `scope not registered for this client: ${outside.join(' ')}`);
  }
  return requested;
}

/**
 * The `client_credentials` grant handler: the host has authenticated the client, checked that it is registered
 * for this grant type and removed its credentials from `params` (see the `GrantRequest` contract).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4
 */
export const clientCredentialsGrant: GrantHandler = async (
  request: GrantRequest,
  context: GrantContext,
): Promise<TokenResponse> => {
  const { client } = request;
  if (client.authenticationMethod === 'none') {
    throw new OAuthError(
      'invalid_client',
      'client_credentials is for confidential clients: the client must authenticate (RFC 6749 4.4)',
    );
  }
  const scope = clientCredentialsScope(request.params['scope'], registeredScope(client.metadata));
  return context.issueTokens({
    subject: client.clientId,
    scope,
    resources: request.resources,
    refreshToken: false,
  });
};
