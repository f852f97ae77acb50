/**
 * Rules kept here: RFC 9728 3.1 and MCP "Protected Resource Metadata Discovery Requirements": for a server at a
 * path, the metadata is at the path-inserted well-known URL (`/.well-known/oauth-protected-resource/mcp`), the first
 * URL clients without a `resource_metadata` try; RFC 9728 3.3: its `resource` is the server's URL. Missing there is
 * a warning (clients then try the root URL, or follow the challenge).
 */
import type { ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';
import { probeResourceMetadata, wellKnownCandidates } from '../resource-metadata-probe.js';

/**
 * The document at the path-inserted well-known URL.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.1
 */
export const prmPathAwareCheck: ServerCheck = {
  id: 'prm.path-aware',
  scope: 'server',
  reference: REFERENCES.prmWellKnown,
  async run(context) {
    const { pathAware } = wellKnownCandidates(context);
    return pathAware === undefined
      ? undefined
      : probeResourceMetadata(context, 'path-aware', pathAware, 'warn');
  },
};
