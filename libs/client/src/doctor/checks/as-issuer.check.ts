/**
 * Rules kept here: RFC 8414 2 and 3.1: an `authorization_servers` entry is an issuer identifier, an http(s) URL
 * with no query or fragment, from which the metadata URLs are built (in the order of MCP "Authorization Server
 * Metadata Discovery"). Reported only when an entry is not one.
 */
import { authorizationServerMetadataUrls } from '@portcullis/protocol';
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { describeFailure } from '../doctor-context.js';
import { REFERENCES } from '../references.js';

/**
 * The issuer identifier and its discovery URLs.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.1
 */
export const asIssuerCheck: AuthorizationServerCheck = {
  id: 'as.issuer',
  scope: 'authorization-server',
  reference: REFERENCES.asIssuer,
  run(_context, server) {
    try {
      server.urls = authorizationServerMetadataUrls(server.issuer);
      return undefined;
    } catch (error) {
      return finding('fail', `"${server.issuer}" is not an issuer identifier: ${describeFailure(error)}.`);
    }
  },
};
