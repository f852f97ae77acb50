/**
 * Rules kept here:
 * - RFC 9728 5.1: the challenge's `resource_metadata` names the Protected Resource Metadata, a URL a client may
 *   fetch (https, http only on loopback; MCP "Communication Security").
 * - MCP 2025-06-18 "Authorization Server Location": clients of that revision find the metadata only there; later
 *   revisions fall back to the well-known URLs, so its absence is a warning.
 */
import { findUrlProblem } from '@portcullis/metadata';
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * `resource_metadata` in the challenge.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export const challengeResourceMetadataCheck: ServerCheck = {
  id: 'challenge.resource_metadata',
  scope: 'server',
  reference: REFERENCES.challenge,
  run({ challenge }) {
    if (challenge === undefined) return undefined;
    const url = challenge.params['resource_metadata'];
    if (url === undefined) {
      return finding(
        'warn',
        'The challenge has no resource_metadata: clients must guess the well-known URLs (2025-06-18 clients cannot).',
        REFERENCES.prmDiscovery,
      );
    }
    const problem = findUrlProblem(url, { schemes: ['https', 'http'], httpsUnlessLoopback: true });
    return problem === undefined
      ? finding('pass', `resource_metadata="${url}".`)
      : finding('fail', `resource_metadata="${url}" is not a URL a client may fetch (${problem}).`);
  },
};
