/**
 * Rules kept here:
 * - MCP "Client ID Metadata Documents" and RFC 8414 2: a client ID metadata document is a public client's identity
 *   (no secret can be agreed beforehand), so it authenticates with `none` (or, when it can keep a key,
 *   `private_key_jwt`); an authorization server that advertises the documents and leaves `none` out of
 *   `token_endpoint_auth_methods_supported` (whose default, when absent, is `client_secret_basic`) turns such
 *   clients away. Shipping clients check both fields before they use a document (claude.ai and Claude Desktop do;
 *   else they register dynamically on every connection) and refuse a server that offers neither a usable document
 *   nor registration: a warning, since no RFC MUST is broken.
 * - What operators get wrong (public MCP issue trackers, 2025-2026): `none` missing from the advertised methods
 *   (modelcontextprotocol/typescript-sdk#1027, anthropics/claude-ai-mcp#1043, JSONbored/metagraphed#11569).
 *
 * @see https://github.com/modelcontextprotocol/typescript-sdk/issues/1027
 * @see https://github.com/anthropics/claude-ai-mcp/issues/1043
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * `none` among the token endpoint methods of a server that accepts client ID metadata documents.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents
 */
export const asCimdNoneCheck: AuthorizationServerCheck = {
  id: 'as.cimd_none',
  scope: 'authorization-server',
  reference: REFERENCES.clientIdMetadataDocuments,
  run(_context, { issuer, metadata }) {
    if (metadata === undefined) return undefined;
    if (metadata['client_id_metadata_document_supported'] !== true) {
      return finding('skip', `${issuer} does not accept client ID metadata documents: nothing to check.`);
    }
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    if (methods.includes('none')) {
      return finding('pass', `${issuer} accepts client ID metadata documents of public clients (none).`);
    }
    const fallback =
      typeof metadata.registration_endpoint === 'string'
        ? 'clients register dynamically instead, on every new connection'
        : 'public clients have no other way to get a client ID';
    return finding(
      'warn',
      `${issuer} advertises client ID metadata documents but not "none" in token_endpoint_auth_methods_supported (${methods.join(', ')}): ${fallback}.`,
    );
  },
};
