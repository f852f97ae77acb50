/**
 * Rules kept here:
 * - RFC 9728 3.1 and MCP "Protected Resource Metadata Discovery Requirements": for a server at a path, clients look
 *   for its metadata at the path-inserted well-known URL, then at the root one; which of the two a client reads
 *   depends on its revision and on what it got wrong, so when both are published they send clients to the same
 *   authorization servers (a warning otherwise: a client that reads the other document asks another server, for
 *   another resource, and its token is refused). When the root document names the server itself, it offers the
 *   same scopes too.
 * - What operators get wrong (public MCP issue trackers, 2025-2026): metadata published only at one of the two URLs
 *   while clients try the other (PrefectHQ/fastmcp#2077: root 404 while the path-inserted URL answers;
 *   akutishevsky/nutrition-mcp#51: only the root, with the origin as `resource`; archestra-ai/archestra#7246: a
 *   client that tried only the path-inserted URL), and two documents that drifted apart. `prm.path-aware` and
 *   `prm.root` report each URL; this check compares what they found.
 *
 * @see https://github.com/PrefectHQ/fastmcp/issues/2077
 * @see https://github.com/akutishevsky/nutrition-mcp/issues/51
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';
import { wellKnownCandidates } from '../resource-metadata-probe.js';

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((entry) => b.includes(entry)) && b.every((entry) => a.includes(entry));

/**
 * The path-inserted and the root documents agree.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.1
 */
export const prmConsistentCheck: ServerCheck = {
  id: 'prm.consistent',
  scope: 'server',
  reference: REFERENCES.prmDiscovery,
  run(context) {
    const { pathAware, root } = wellKnownCandidates(context);
    if (pathAware === undefined) {
      return finding('skip', 'The server is at the root of its origin: it has one well-known URL.');
    }
    const atPath = context.resourceMetadata.get('path-aware');
    const atRoot = context.resourceMetadata.get('root');
    if (atPath === undefined && atRoot === undefined) return undefined;
    if (atPath === undefined || atRoot === undefined) {
      const [published, missing] =
        atPath === undefined ? [root.url, pathAware.url] : [pathAware.url, root.url];
      return finding(
        'skip',
        `Only ${published} is published: nothing to compare (clients that look only at ${missing} find nothing).`,
      );
    }
    const pathServers = atPath.metadata.authorization_servers;
    const rootServers = atRoot.metadata.authorization_servers;
    if (!sameSet(pathServers, rootServers)) {
      return finding(
        'warn',
        `${atPath.url} names authorization servers ${pathServers.join(', ')} but ${atRoot.url} names ${rootServers.join(', ')}: a client that reads the other document goes to another authorization server.`,
      );
    }
    const sameResource = atPath.metadata.resource === atRoot.metadata.resource;
    const pathScopes = atPath.metadata.scopes_supported ?? [];
    const rootScopes = atRoot.metadata.scopes_supported ?? [];
    if (sameResource && !sameSet(pathScopes, rootScopes)) {
      return finding(
        'warn',
        `Both documents describe ${atPath.metadata.resource} but offer different scopes_supported (${pathScopes.join(' ') || 'none'} and ${rootScopes.join(' ') || 'none'}): clients ask for different scopes depending on which they read.`,
      );
    }
    return finding(
      'pass',
      `${atPath.url} and ${atRoot.url} name the same authorization servers (${pathServers.join(', ')}).`,
    );
  },
};
