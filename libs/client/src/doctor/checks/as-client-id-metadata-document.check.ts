/**
 * Rules kept here: MCP "Client Registration" and "Client ID Metadata Documents": an authorization server says with
 * `client_id_metadata_document_supported` that an https URL may serve as `client_id`, the way MCP prefers for a
 * client and server that have never met.
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * Client ID metadata documents accepted.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-registration
 */
export const asClientIdMetadataDocumentCheck: AuthorizationServerCheck = {
  id: 'as.client_id_metadata_document',
  scope: 'authorization-server',
  reference: REFERENCES.registration,
  run(_context, { issuer, metadata }) {
    if (metadata === undefined) return undefined;
    return metadata['client_id_metadata_document_supported'] === true
      ? finding('pass', `${issuer} accepts client ID metadata documents.`)
      : finding('warn', `${issuer} does not accept client ID metadata documents.`);
  },
};
