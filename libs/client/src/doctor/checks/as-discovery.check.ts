/**
 * Rules kept here:
 * - MCP "Authorization Server Metadata Discovery": clients try the RFC 8414 and OpenID Connect Discovery URLs in
 *   order and use the first document found; a 4xx means "not published here". Each URL gets a line: a broken one
 *   before the first usable document fails, one after it only warns (clients stop at the first).
 * - RFC 8414 3.3: a document whose `issuer` is not the issuer its URL was built from must not be used (with the
 *   one equivalence the SDK accepts, a root issuer with or without its trailing slash; `as.issuer_identical` says
 *   whether the two are also byte-equal). The SDK's own reading of a document (`fetchMetadataDocument`,
 *   `parseAuthorizationServerMetadata`) decides, so the doctor refuses what the client refuses.
 */
import {
  parseAuthorizationServerMetadata,
  fetchMetadataDocument,
} from '../../discovery/metadata-document.js';
import { isPortcullisError } from '../../errors/portcullis-error.js';
import { finding, type AuthorizationServerCheck, type CheckStatus, type Finding } from '../doctor-check.js';
import { describeFailure } from '../doctor-context.js';
import { REFERENCES } from '../references.js';
import { notAnObject, unavailable } from '../resource-metadata-probe.js';

/**
 * The metadata at every discovery URL.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 */
export const asDiscoveryCheck: AuthorizationServerCheck = {
  id: 'as.discovery',
  scope: 'authorization-server',
  reference: REFERENCES.asDiscovery,
  async run(context, server) {
    if (server.urls === undefined) return undefined;
    const findings: Finding[] = [];
    for (const url of server.urls) {
      const broken: CheckStatus = server.metadata === undefined ? 'fail' : 'warn';
      const answer = await fetchMetadataDocument(context.fetch, url);
      if (answer.kind === 'absent') {
        findings.push(finding('skip', `${url}: not published (HTTP ${answer.status}).`));
        continue;
      }
      if (answer.kind === 'unavailable') {
        findings.push(finding(broken, `${url}: ${unavailable(answer)}`));
        continue;
      }
      if (answer.body === undefined) {
        findings.push(finding(broken, `${url}: ${notAnObject()}`));
        continue;
      }
      try {
        const metadata = parseAuthorizationServerMetadata(answer.body, { url, issuer: server.issuer });
        findings.push(finding('pass', `${url}: metadata of ${server.issuer}.`));
        if (server.metadata === undefined) {
          server.metadata = metadata;
          server.metadataUrl = url;
        }
      } catch (error) {
        findings.push(
          isPortcullisError(error, 'issuer_mismatch')
            ? finding(
                broken,
                `${url} says issuer "${String(error.details['published'])}", not "${server.issuer}": clients must not use it.`,
                REFERENCES.asIssuer,
              )
            : finding(
                broken,
                `${url} is not usable authorization server metadata: ${describeFailure(error)}`,
              ),
        );
      }
    }
    return findings;
  },
};
