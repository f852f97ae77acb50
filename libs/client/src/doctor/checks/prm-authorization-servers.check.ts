/**
 * Rules kept here: MCP "Authorization Server Location": the metadata lists at least one authorization server (the
 * schema refuses a document without); each is checked below.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * The authorization servers clients would go to.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export const prmAuthorizationServersCheck: ServerCheck = {
  id: 'prm.authorization_servers',
  scope: 'server',
  reference: REFERENCES.prmDiscovery,
  run({ usedResourceMetadata }) {
    if (usedResourceMetadata === undefined) return undefined;
    return finding(
      'pass',
      `Authorization servers: ${usedResourceMetadata.metadata.authorization_servers.join(', ')}.`,
    );
  },
};
