/**
 * Rules kept here:
 * - MCP "Communication Security": every authorization server endpoint is served over https, and RFC 9728 1.2 / 3.3:
 *   a resource identifier and the metadata's URLs name what the client reached, so a server reached over https
 *   publishes no `http://` URL: not `resource_metadata`, not the metadata's `resource` or `authorization_servers`,
 *   not the authorization server's `issuer`, endpoints or `jwks_uri`. Clients refuse such a URL, or worse, send a
 *   request (a code, a token) over plain http.
 * - What operators get wrong (public MCP issue trackers, 2025-2026): an app behind a TLS-terminating proxy that
 *   builds its URLs from the request's scheme without trusting `X-Forwarded-Proto` (mesh/mesh-mcp#20,
 *   Mnexa-AI/e2a#635, tuist/tuist#9663, andrea-magni/MARS#203, agentgateway/agentgateway#449): often one field
 *   only, the one built from the request while the others come from configuration.
 *
 * @see https://github.com/mesh/mesh-mcp/issues/20
 * @see https://github.com/Mnexa-AI/e2a/issues/635
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/** Where each URL was seen, and the URL. */
type Seen = readonly [where: string, url: unknown];

/**
 * No `http://` URL in the metadata of a server reached over https.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#communication-security
 */
export const metadataHttpsCheck: ServerCheck = {
  id: 'metadata.https',
  scope: 'server',
  reference: REFERENCES.communicationSecurity,
  run(context) {
    if (new URL(context.server).protocol !== 'https:') {
      return finding(
        'skip',
        `${context.server} is reached over http: nothing to compare the metadata's URLs with.`,
      );
    }
    const seen: Seen[] = [
      ['the challenge resource_metadata', context.challenge?.params['resource_metadata']],
    ];
    for (const { url, metadata } of context.resourceMetadata.values()) {
      seen.push([`${url} resource`, metadata.resource]);
      for (const issuer of metadata.authorization_servers)
        seen.push([`${url} authorization_servers`, issuer]);
      seen.push([`${url} jwks_uri`, metadata.jwks_uri]);
    }
    for (const { metadataUrl, metadata } of context.authorizationServers) {
      if (metadata === undefined) continue;
      for (const [field, value] of Object.entries(metadata)) {
        if (field === 'issuer' || field === 'jwks_uri' || field.endsWith('_endpoint')) {
          seen.push([`${metadataUrl ?? 'the authorization server metadata'} ${field}`, value]);
        }
      }
    }
    const plain = seen.filter(([, url]) => typeof url === 'string' && /^http:/i.test(url));
    if (plain.length === 0) {
      return finding('pass', 'Every URL in the challenge and the metadata is https, as the server is.');
    }
    const listed = plain
      .slice(0, 3)
      .map(([where, url]) => `${where} ${String(url)}`)
      .join('; ');
    return finding(
      'fail',
      `The server is reached over https but publishes http URLs (${listed}${plain.length > 3 ? `; ${plain.length - 3} more` : ''}): behind a TLS-terminating proxy, the app builds URLs from the request's scheme (trust X-Forwarded-Proto, or configure the public https URL).`,
    );
  },
};
