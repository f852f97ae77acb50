import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import { dpopAuthorizationServerFromEnv, type DpopAuthorizationServerEnv } from '@portcullis/extension-dpop';
import type { ExtensionCatalogue } from '@portcullis/platform';

/**
 * The extensions built into this app, by the name `EXTENSIONS` uses (comma-separated; see the README's
 * configuration table), with the authorization server's meaning. Adding an extension package to the app is one line
 * here; a team's own package needs no line: `EXTENSIONS` names it, installed in `EXTENSIONS_DIR`.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export const AVAILABLE_EXTENSIONS: ExtensionCatalogue<DpopAuthorizationServerEnv> = {
  // io.modelcontextprotocol/oauth-client-credentials (MCP SEP-1046)
  'client-credentials': clientCredentialsExtension,
  // io.modelcontextprotocol/dpop (MCP SEP-1932, RFC 9449): DPoP proofs at the token endpoint and tokens bound to
  // their key; DPOP_REQUIRED, DPOP_NONCE, DPOP_NONCE_SECRET, DPOP_PROOF_MAX_AGE as on the authorization server
  dpop: dpopAuthorizationServerFromEnv,
};
