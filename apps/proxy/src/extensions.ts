import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import type { ExtensionCatalogue } from '@portcullis/platform';

/**
 * The extensions this app can compose, by the name `EXTENSIONS` uses (comma-separated; see the README's
 * configuration table). Adding an extension package to the app is one line here.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export const AVAILABLE_EXTENSIONS: ExtensionCatalogue<unknown> = {
  // io.modelcontextprotocol/oauth-client-credentials (MCP SEP-1046)
  'client-credentials': clientCredentialsExtension,
};
