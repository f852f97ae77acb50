/**
 * Rules kept here: MCP "Client Registration": a client without a pre-registered ID needs client ID metadata
 * documents or dynamic client registration (RFC 7591); with neither, every client must be registered by hand.
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * A way for a new client to get a client ID.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-registration
 */
export const asRegistrationCheck: AuthorizationServerCheck = {
  id: 'as.registration',
  scope: 'authorization-server',
  reference: REFERENCES.registration,
  run(_context, { issuer, metadata }) {
    if (metadata === undefined) return undefined;
    const registration = typeof metadata.registration_endpoint === 'string';
    const metadataDocuments = metadata['client_id_metadata_document_supported'] === true;
    if (registration) return finding('pass', `${issuer} offers dynamic client registration.`);
    return metadataDocuments
      ? finding('pass', `${issuer} offers no dynamic registration (client ID metadata documents are enough).`)
      : finding(
          'warn',
          `${issuer} offers neither dynamic registration nor client ID metadata documents: every client needs a pre-registered ID.`,
        );
  },
};
