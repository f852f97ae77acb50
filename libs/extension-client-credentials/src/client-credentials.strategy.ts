import type { ClientGrantContext, ClientGrantStrategy, TokenResponse } from '@portcullis/extensions';
import { CLIENT_CREDENTIALS_GRANT } from './client-credentials.grant.js';

/**
 * The client half: one token request with `grant_type=client_credentials` and the scope the SDK chose. The SDK's
 * `requestToken` adds `resource` (RFC 8707 2) and the client's configured authentication (`client_secret_basic`
 * by default, RFC 6749 2.3.1); it offers the strategy only when the authorization server lists
 * `client_credentials` in `grant_types_supported` (RFC 8414 2).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx
 */
export const clientCredentialsStrategy: ClientGrantStrategy = {
  grantType: CLIENT_CREDENTIALS_GRANT,
  obtainToken(context: ClientGrantContext): Promise<TokenResponse> {
    return context.requestToken({
      grant_type: CLIENT_CREDENTIALS_GRANT,
      ...(context.scope.length > 0 ? { scope: context.scope.join(' ') } : {}),
    });
  },
};
