// The requests of clients built on the MCP TypeScript SDK's auth flow (Claude Code, the MCP Inspector), as its
// `startAuthorization` and `executeTokenRequest` build them: response_type, client_id, code_challenge,
// code_challenge_method, redirect_uri, state, scope, `prompt=consent` whenever `offline_access` is asked for (OpenID
// Connect Core 11), resource; then grant_type, code, code_verifier, redirect_uri, resource and, for a public
// client, client_id. Source: https://github.com/modelcontextprotocol/typescript-sdk
// (packages/client/src/client/auth.ts, `startAuthorization`, `executeTokenRequest`, `applyPublicAuth`).
import { present, type AuthorizationInput, type TokenInput } from './shipping-client.js';

/** The SDK's authorization request for `scopes` and `resource` (either may be absent). */
export function sdkAuthorizationParameters(
  input: AuthorizationInput,
  scopes: readonly string[],
  resource: string | undefined,
): [string, string][] {
  const scope = scopes.join(' ') || undefined;
  return present([
    ['response_type', 'code'],
    ['client_id', input.clientId],
    ['code_challenge', input.codeChallenge],
    ['code_challenge_method', 'S256'],
    ['redirect_uri', input.redirectUri],
    ['state', input.state],
    ['scope', scope],
    ['prompt', scopes.includes('offline_access') ? 'consent' : undefined],
    ['resource', resource],
  ]);
}

/** The SDK's token request, before client authentication (`client_id` for a public client, appended last). */
export function sdkTokenParameters(input: TokenInput, resource: string | undefined): [string, string][] {
  return present([
    ['grant_type', 'authorization_code'],
    ['code', input.code],
    ['code_verifier', input.codeVerifier],
    ['redirect_uri', input.redirectUri],
    ['resource', resource],
  ]);
}
