// Rules kept: RFC 6749 3.3 (space-delimited scope tokens; a scope the server does not offer is `invalid_scope`),
// MCP 2026-07-28 "Scope Selection Strategy" and "Refresh Tokens" (the resource's scopes plus the server's own
// `openid` and `offline_access`); our choice: a client's registered `scope` does not cap its later requests, so
// step-up works. Without `scope`, the resource's `scopes_supported` are requested. `offline_access` is kept only
// for clients that may refresh (OIDC Core 11).
import { OAuthError, parseScope } from '@portcullis/protocol';
import { established, type AuthorizationCheck } from '../authorization-check.js';

/** Every requested scope is one the resource or the server offers. */
export const scopeCheck: AuthorizationCheck = {
  name: 'scope',
  beforeRedirect: false,
  run(context) {
    let requested: string[];
    try {
      requested = parseScope(context.params.get('scope'));
    } catch {
      throw new OAuthError('invalid_scope', 'scope is malformed');
    }
    const scopes = context.resources.requestedScopes(established(context, 'resource'), requested);
    const canRefresh = established(context, 'client').grantTypes.includes('refresh_token');
    context.scopes = canRefresh ? scopes : scopes.filter((scope) => scope !== 'offline_access');
  },
};
