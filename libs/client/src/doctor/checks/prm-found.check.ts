/**
 * Rules kept here: MCP "Protected Resource Metadata Discovery Requirements" and "Authorization Server Location":
 * clients use the challenge's document, else the path-inserted one, else the root one; without any, they cannot
 * find an authorization server. The one they would use names the authorization servers the next checks look at.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * Which document clients would use; fails when there is none.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 */
export const prmFoundCheck: ServerCheck = {
  id: 'prm.found',
  scope: 'server',
  reference: REFERENCES.prmDiscovery,
  run(context) {
    const fromChallenge = context.challenge?.params['resource_metadata'];
    const found = [...context.resourceMetadata.values()];
    const used =
      found.find((entry) => entry.url === fromChallenge) ??
      context.resourceMetadata.get('path-aware') ??
      context.resourceMetadata.get('challenge-url') ??
      context.resourceMetadata.get('root');
    if (used === undefined) {
      return finding(
        'fail',
        'No usable Protected Resource Metadata: clients cannot find the authorization server.',
      );
    }
    context.usedResourceMetadata = used;
    for (const issuer of used.metadata.authorization_servers) context.authorizationServers.push({ issuer });
    return undefined;
  },
};
