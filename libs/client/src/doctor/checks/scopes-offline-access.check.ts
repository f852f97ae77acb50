/**
 * Rules kept here:
 * - MCP 2026-07-28 "Refresh Tokens" (SEP-2207): `offline_access` is how a client asks an authorization server for
 *   a refresh token, and clients add it when the authorization server lists it in `scopes_supported`; an MCP server
 *   SHOULD NOT list it in its Protected Resource Metadata `scopes_supported` or in a challenge's `scope`, since a
 *   refresh token is not something the resource needs (a warning when it does).
 * - An authorization server that lists neither `offline_access` nor the `refresh_token` grant gives clients no
 *   refresh token they know to ask for: users sign in again whenever an access token expires (a warning).
 * - What operators get wrong (public MCP issue trackers, 2026): `offline_access` put in the resource's metadata to
 *   get refresh tokens (agentmail-to/agentmail-mcp#51, useautumn/autumn#2454), or left out of the authorization
 *   server's (supabase/auth#2628, can1357/oh-my-pi#9909).
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2207
 * @see https://github.com/supabase/auth/issues/2628
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

const OFFLINE_ACCESS = 'offline_access';

/**
 * `offline_access` offered by the authorization server, not asked for by the resource.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#refresh-tokens
 */
export const scopesOfflineAccessCheck: AuthorizationServerCheck = {
  id: 'scopes.offline_access',
  scope: 'authorization-server',
  reference: REFERENCES.refreshTokens,
  run(context, { issuer, metadata }) {
    if (metadata === undefined) return undefined;
    const resource = context.usedResourceMetadata;
    const challenged = (context.challenge?.params['scope'] ?? '').split(' ').includes(OFFLINE_ACCESS);
    const listed = resource?.metadata.scopes_supported?.includes(OFFLINE_ACCESS) === true;
    if (listed || challenged) {
      const where = [
        listed ? `${resource?.url} scopes_supported` : '',
        challenged ? 'the challenge scope' : '',
      ]
        .filter(Boolean)
        .join(' and ');
      return finding(
        'warn',
        `offline_access is in ${where}: a resource should not ask for it (refresh tokens are the authorization server's to offer, in its own scopes_supported).`,
      );
    }
    if (metadata.scopes_supported?.includes(OFFLINE_ACCESS)) {
      return finding('pass', `${issuer} offers offline_access; the resource does not ask for it.`);
    }
    if (metadata.grant_types_supported?.includes('refresh_token')) {
      return finding(
        'pass',
        `${issuer} does not list offline_access but offers the refresh_token grant; the resource does not ask for offline_access.`,
      );
    }
    return finding(
      'warn',
      `${issuer} lists neither offline_access nor the refresh_token grant: clients get no refresh token and users sign in again when the access token expires.`,
    );
  },
};
