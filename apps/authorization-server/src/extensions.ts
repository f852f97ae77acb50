import type { ExtensionCatalogue } from '@portcullis/authorization';
import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import {
  enterpriseManagedAuthorization,
  type TrustedIdentityProvider,
} from '@portcullis/extension-enterprise-managed-authorization';

/**
 * The extensions this app can compose, by the name `EXTENSIONS` uses (comma-separated; see the README's
 * configuration table). Adding an extension package to the app is one line here.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export const AVAILABLE_EXTENSIONS: ExtensionCatalogue<{
  ENTERPRISE_IDPS: readonly TrustedIdentityProvider[];
}> = {
  // io.modelcontextprotocol/oauth-client-credentials (MCP SEP-1046)
  'client-credentials': clientCredentialsExtension,
  // io.modelcontextprotocol/enterprise-managed-authorization (MCP SEP-990): ID-JAGs from ENTERPRISE_IDPS
  'enterprise-managed-authorization': (env) =>
    enterpriseManagedAuthorization({ trustedIdentityProviders: env.ENTERPRISE_IDPS }),
};
