// The requests of clients built on the Rust MCP SDK's auth flow (`rmcp`: Goose, Codex), as its
// `AuthorizationManager` builds them over the `oauth2` crate: response_type, client_id, state, code_challenge,
// code_challenge_method, redirect_uri, scope, then `resource` (the resource metadata's `resource`); the token request
// grant_type, code, code_verifier, redirect_uri, resource, then `client_id` for a public client. Its scope selection
// (SEP-2350, SEP-2207): the challenge's `scope` and the resource's `scopes_supported` accumulated, the
// authorization server's `scopes_supported` only when neither says anything, `offline_access` appended when the
// server offers it. Source: https://github.com/modelcontextprotocol/rust-sdk (crates/rmcp/src/transport/auth.rs,
// `select_scopes`, `get_authorization_url`, `exchange_code_for_token`).
import {
  challengeScopes,
  present,
  stringList,
  type AuthorizationInput,
  type Discovery,
  type TokenInput,
} from './shipping-client.js';

/** `rmcp`'s `select_scopes` for a first authorization. */
export function rmcpScopeSelection(discovery: Discovery): string[] {
  const accumulated = [
    ...new Set([
      ...challengeScopes(discovery),
      ...stringList(discovery.resourceMetadata, 'scopes_supported'),
    ]),
  ];
  const offered = stringList(discovery.serverMetadata, 'scopes_supported');
  const selected = accumulated.length > 0 ? accumulated : offered;
  return selected.length > 0 && offered.includes('offline_access') && !selected.includes('offline_access')
    ? [...selected, 'offline_access']
    : selected;
}

/** The `resource` `rmcp` sends: the resource metadata's, else the server URL. */
export function rmcpResource(discovery: Discovery): string {
  const resource = discovery.resourceMetadata['resource'];
  return typeof resource === 'string' ? resource : discovery.resource;
}

export function rmcpAuthorizationParameters(
  discovery: Discovery,
  input: AuthorizationInput,
  scopes: readonly string[],
): [string, string][] {
  return present([
    ['response_type', 'code'],
    ['client_id', input.clientId],
    ['state', input.state],
    ['code_challenge', input.codeChallenge],
    ['code_challenge_method', 'S256'],
    ['redirect_uri', input.redirectUri],
    ['scope', scopes.join(' ') || undefined],
    ['resource', rmcpResource(discovery)],
  ]);
}

export function rmcpTokenParameters(discovery: Discovery, input: TokenInput): [string, string][] {
  return present([
    ['grant_type', 'authorization_code'],
    ['code', input.code],
    ['code_verifier', input.codeVerifier],
    ['redirect_uri', input.redirectUri],
    ['resource', rmcpResource(discovery)],
  ]);
}

/** `rmcp`'s `register_client` body. */
export function rmcpRegistrationBody(
  clientName: string,
  redirectUri: string,
  scopes: readonly string[],
): Record<string, unknown> {
  return {
    client_name: clientName,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
    response_types: ['code'],
    ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    application_type: 'native',
  };
}
