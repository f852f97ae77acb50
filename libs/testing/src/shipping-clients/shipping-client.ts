// What a shipping MCP client is, as data the driver replays: what it publishes (client ID metadata documents, its
// JWKS), how it picks between a metadata document and dynamic registration, the exact registration body, the
// parameters of its authorization and token requests (which it sends, which it leaves out), how it authenticates
// at the token endpoint and where its redirect goes. Each client's file says where each fact comes from.
import type { Challenge } from '@portcullis/protocol';

/** What a client learned before it registered: the 401 challenge, the resource's and the server's metadata. */
export interface Discovery {
  /** The MCP server URL as the user entered it. */
  readonly resource: string;
  /** The Bearer challenge of the first (unauthenticated) request. */
  readonly challenge: Challenge;
  /** RFC 9728 protected resource metadata. */
  readonly resourceMetadata: Readonly<Record<string, unknown>>;
  /** The authorization server's issuer identifier, the first of `authorization_servers`. */
  readonly issuer: string;
  /** RFC 8414 authorization server metadata. */
  readonly serverMetadata: Readonly<Record<string, unknown>>;
}

/** How the client identifies itself at this server. */
export type RegistrationChoice =
  /** Its client ID metadata document URL is its `client_id`; nothing is registered. */
  | { readonly kind: 'metadata-document'; readonly clientId: string }
  /** RFC 7591 dynamic registration with this exact body, made for the redirect URI in use. */
  | { readonly kind: 'dynamic'; readonly body: (redirectUri: string) => Record<string, unknown> };

/** Where the authorization response goes. */
export type RedirectPlan =
  /**
   * A loopback server the client starts on `host`, at `port` when given and free (VS Code's 33418, the
   * Inspector's 6274 and 6276), else on an ephemeral port (RFC 8252 7.3).
   */
  | {
      readonly kind: 'loopback';
      readonly host: 'localhost' | '127.0.0.1';
      readonly path: string;
      readonly port?: number;
    }
  /** A hosted https redirect (the code is read from the Location header the server answers). */
  | { readonly kind: 'hosted'; readonly uri: string }
  /** A private-use URI scheme (RFC 8252 7.1): the Location the browser would hand to the operating system. */
  | { readonly kind: 'private-use'; readonly uri: string };

/** RFC 7591 2 `token_endpoint_auth_method` values the fixtures use. */
export type ClientAuthentication = 'none' | 'client_secret_post' | 'private_key_jwt';

/** What the authorization request is built from. */
export interface AuthorizationInput {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state: string;
}

/** What the token request is built from. */
export interface TokenInput {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly code: string;
  readonly codeVerifier: string;
}

/** One shipping client, replayed exactly. */
export interface ShippingClient {
  readonly name: string;
  /** Every document the client publishes, by URL (metadata documents, JWKS). */
  documents(): Promise<Readonly<Record<string, unknown>>>;
  /** Metadata document or dynamic registration, as the client decides from the server's metadata. */
  register(discovery: Discovery): RegistrationChoice;
  redirect(discovery: Discovery, choice: RegistrationChoice): RedirectPlan;
  /** The authorization request's query parameters, in the client's order; those it omits are absent. */
  authorizationParameters(discovery: Discovery, input: AuthorizationInput): [string, string][];
  /**
   * The token request's form parameters other than client authentication, which the driver appends: `client_id`
   * (`none`), `client_id` and `client_secret` (`client_secret_post`), or `client_assertion_type` and
   * `client_assertion` (`private_key_jwt`).
   */
  tokenParameters(discovery: Discovery, input: TokenInput): [string, string][];
  /** How the client authenticates at the token endpoint, given how it is registered. */
  authentication(discovery: Discovery, choice: RegistrationChoice): ClientAuthentication;
  /** For `private_key_jwt`: an RFC 7523 client assertion signed with the client's own key. */
  clientAssertion?(clientId: string, audience: string): Promise<string>;
}

/** A string array member of a metadata document, or an empty one. */
export function stringList(document: Readonly<Record<string, unknown>>, name: string): string[] {
  const value = document[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Whether the server advertises client ID metadata documents (draft-ietf-oauth-client-id-metadata-document). */
export function advertisesMetadataDocuments(discovery: Discovery): boolean {
  return discovery.serverMetadata['client_id_metadata_document_supported'] === true;
}

/** Whether `method` is among the server's `token_endpoint_auth_methods_supported` (RFC 8414 2). */
export function acceptsAuthentication(discovery: Discovery, method: ClientAuthentication): boolean {
  return stringList(discovery.serverMetadata, 'token_endpoint_auth_methods_supported').includes(method);
}

/** The `scope` of the 401 challenge, split (RFC 6750 3). */
export function challengeScopes(discovery: Discovery): string[] {
  return (discovery.challenge.params['scope'] ?? '').split(' ').filter(Boolean);
}

/**
 * What the MCP TypeScript SDK (and the clients on it) requests: the challenge's `scope`, else the resource's
 * `scopes_supported`; `offline_access` added when the authorization server offers it (MCP "Scope Selection
 * Strategy", SEP-2207).
 */
export function sdkScopeSelection(discovery: Discovery): string[] {
  const scopes = challengeScopes(discovery);
  const selected = scopes.length > 0 ? scopes : stringList(discovery.resourceMetadata, 'scopes_supported');
  const offline = stringList(discovery.serverMetadata, 'scopes_supported').includes('offline_access');
  return offline && !selected.includes('offline_access') ? [...selected, 'offline_access'] : selected;
}

/** The pairs whose value is defined, in order. */
export function present(pairs: readonly (readonly [string, string | undefined])[]): [string, string][] {
  return pairs.filter((pair): pair is [string, string] => pair[1] !== undefined);
}
