// Cursor (the desktop app), replayed.
//
// - Dynamic registration only, never a client ID metadata document (a feature request since 2026-01):
//   https://cursor.com/docs/context/mcp, https://forum.cursor.com/t/mcp-oauth-cimd-support-plans-and-timelines/148096.
// - The registration: client_name "Cursor", the private-use URI scheme redirect
//   `cursor://anysphere.cursor-mcp/oauth/callback` (RFC 8252 7.1), `authorization_code` and `refresh_token`, `code`,
//   `none`, no `application_type`: https://github.com/laravel/mcp/issues/173,
//   https://github.com/paradigmxyz/centaur/pull/1452, https://github.com/different-ai/openwork/pull/3059. Cursor 3.10
//   and later register `https://www.cursor.com/agents/mcp/oauth/callback` and `http://localhost:8787/callback`
//   beside it (https://github.com/erp-mafia/accounted/pull/2225,
//   https://forum.cursor.com/t/oauth-redirect-uri-changed-from-cursor-to-http-localhost-for-streamable-http-mcp/165019);
//   the private-use one is what is replayed here.
// - Scope: the authorization server's `scopes_supported` (https://cursor.com/docs/context/mcp: without `auth`,
//   Cursor "reads scopes_supported from /.well-known/oauth-authorization-server"); PKCE S256; no `resource`.
// - The browser hands the redirect to the operating system, which opens Cursor: the code is read from the
//   Location the server answers.
import { CURSOR_REDIRECT, cursorRegistration } from './registrations.js';
import { present, stringList, type ShippingClient } from './shipping-client.js';

export function cursor(): ShippingClient {
  return {
    name: 'Cursor',
    documents: async () => ({}),
    register: () => ({
      kind: 'dynamic',
      body: (redirectUri) => cursorRegistration(redirectUri),
    }),
    redirect: () => ({ kind: 'private-use', uri: CURSOR_REDIRECT }),
    authorizationParameters: (discovery, input) =>
      present([
        ['response_type', 'code'],
        ['client_id', input.clientId],
        ['code_challenge', input.codeChallenge],
        ['code_challenge_method', 'S256'],
        ['redirect_uri', input.redirectUri],
        ['state', input.state],
        ['scope', stringList(discovery.serverMetadata, 'scopes_supported').join(' ') || undefined],
      ]),
    tokenParameters: (_discovery, input) =>
      present([
        ['grant_type', 'authorization_code'],
        ['code', input.code],
        ['code_verifier', input.codeVerifier],
        ['redirect_uri', input.redirectUri],
      ]),
    authentication: () => 'none',
  };
}
