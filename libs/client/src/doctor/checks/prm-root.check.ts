/**
 * Rules kept here: RFC 9728 3.1 and MCP "Protected Resource Metadata Discovery Requirements": the root well-known
 * URL, which clients try after the path-inserted one. RFC 9728 3.3: for a server at a path, the document there may
 * describe the origin (clients that fall back to it accept that), unless the challenge sent clients there: then it
 * must name the server. Missing there is fine once the path-inserted document is published.
 */
import type { ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';
import { probeResourceMetadata, wellKnownCandidates } from '../resource-metadata-probe.js';

/**
 * The document at the root well-known URL.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.3
 */
export const prmRootCheck: ServerCheck = {
  id: 'prm.root',
  scope: 'server',
  reference: REFERENCES.prmWellKnown,
  run(context) {
    const { pathAware, root } = wellKnownCandidates(context);
    const foundAtPath = pathAware !== undefined && context.resourceMetadata.has('path-aware');
    return probeResourceMetadata(context, 'root', root, foundAtPath ? 'skip' : 'warn');
  },
};
