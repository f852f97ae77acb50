import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import { enterpriseManagedAuthorization } from '@portcullis/extension-enterprise-managed-authorization';
import type { ResourceServerExtensionCatalogue } from '@portcullis/resource-server';

/**
 * The extensions this server can compose, by the name `EXTENSIONS` uses (comma-separated; see the README's
 * configuration table), the same names as the authorization server's. Neither has a resource-server half yet: the
 * server composes them to declare them in its MCP capabilities (MCP SEP-2133 "Negotiation").
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 * @see https://modelcontextprotocol.io/seps/2133-extensions
 */
export const AVAILABLE_EXTENSIONS: ResourceServerExtensionCatalogue = {
  // io.modelcontextprotocol/oauth-client-credentials (MCP SEP-1046)
  'client-credentials': clientCredentialsExtension,
  // io.modelcontextprotocol/enterprise-managed-authorization (MCP SEP-990): no identity providers here, the
  // authorization server redeems the ID-JAGs
  'enterprise-managed-authorization': enterpriseManagedAuthorization(),
};
