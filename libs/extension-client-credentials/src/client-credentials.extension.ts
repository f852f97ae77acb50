import { defineExtension } from '@portcullis/extensions';
import { CLIENT_CREDENTIALS_GRANT, clientCredentialsGrant } from './client-credentials.grant.js';
import { clientCredentialsStrategy } from './client-credentials.strategy.js';

/**
 * The extension's identifier, as MCP SEP-1046 names it.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx
 */
export const CLIENT_CREDENTIALS_EXTENSION_ID = 'io.modelcontextprotocol/oauth-client-credentials';

/** The name of the client grant strategy, for `ExtensionRegistry.clientGrantStrategies()`. */
export const CLIENT_CREDENTIALS_STRATEGY = 'client-credentials';

/**
 * `io.modelcontextprotocol/oauth-client-credentials`: machine-to-machine access with the OAuth client credentials
 * grant. The host lists the grant type in `grant_types_supported` (RFC 8414 2) and authenticates the client before
 * the handler runs; the client half obtains a token with it after discovery.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4
 */
export const clientCredentialsExtension = defineExtension({
  id: CLIENT_CREDENTIALS_EXTENSION_ID,
  version: '0.1.0',
  authorizationServer: {
    grantTypes: { [CLIENT_CREDENTIALS_GRANT]: clientCredentialsGrant },
  },
  client: {
    grantStrategies: { [CLIENT_CREDENTIALS_STRATEGY]: clientCredentialsStrategy },
  },
});
