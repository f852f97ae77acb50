/**
 * Rules kept here: MCP "Authorization Server Metadata Discovery": without a usable document at any discovery URL a
 * client cannot authorize with this server.
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * Fails when no discovery URL gave usable metadata.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 */
export const asMetadataCheck: AuthorizationServerCheck = {
  id: 'as.metadata',
  scope: 'authorization-server',
  reference: REFERENCES.asDiscovery,
  run(_context, server) {
    if (server.urls === undefined || server.metadata !== undefined) return undefined;
    return finding('fail', `No usable metadata for ${server.issuer} at any discovery URL.`);
  },
};
