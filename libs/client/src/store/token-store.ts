/**
 * Where the client keeps tokens and registered client credentials.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Authorization Server Binding": token sets are keyed by issuer, resource and client ID; client
 *   credentials by issuer, so credentials issued by one authorization server are never presented to another.
 * - MCP 2026-07-28 "Refresh Tokens": refresh tokens are kept confidential in storage; a store that persists them
 *   encrypts them (see `FileTokenStore`), and nothing here ever logs them.
 * - RFC 9449 Section 2: the private key a token set is bound to (DPoP) is part of the token set, kept exactly as
 *   confidential as its tokens and deleted with them.
 * - RFC 8414 Section 3 with RFC 9111 Section 4.2: an authorization server's metadata, once fetched and checked, may
 *   be kept for its freshness lifetime, so that a later run (a new process) does not fetch it again; it is checked
 *   again each time it is read back.
 */
import type { JsonObject } from '@portcullis/extensions';

/**
 * What identifies a token set.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export interface TokenSetKey {
  /** The issuer that issued the tokens. */
  readonly issuer: string;
  /** The canonical URI of the protected resource the client talks to. */
  readonly resource: string;
  /** The client ID the tokens were issued to. */
  readonly clientId: string;
}

/**
 * A token set as stored: the token response (RFC 6749 Section 5.1) plus what the client needs to use and renew it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export interface StoredTokenSet extends TokenSetKey {
  /** The `resource` parameter value sent for these tokens, exactly as the resource metadata published it. */
  readonly resourceIndicator: string;
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** When the access token expires, in milliseconds since the epoch; absent when the server did not say. */
  readonly expiresAt?: number;
  /** The scopes granted (the response's `scope`, else the scopes requested; RFC 6749 Section 5.1). */
  readonly scope: readonly string[];
  /**
   * The scopes the client asked for: the base of the union on re-authorization (MCP 2026-07-28 "Step-Up
   * Authorization Flow", step 2).
   */
  readonly requestedScope: readonly string[];
  /** When the tokens were obtained, in milliseconds since the epoch. */
  readonly obtainedAt: number;
  /**
   * The private JWK of the key pair this authorization generated to prove possession with (DPoP, RFC 9449), when
   * the authorization server offered it: the access token (with `tokenType` `DPoP`) and the refresh token are
   * bound to it. A secret like the tokens.
   */
  readonly proofKey?: JsonObject;
}

/**
 * The token endpoint authentication methods the client can use.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export type TokenEndpointAuthMethod =
  'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/**
 * Client credentials bound to one authorization server: registered dynamically, or pre-registered and bound.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1
 */
export interface StoredClient {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** The redirect URIs registered with the client. */
  readonly redirectUris: readonly string[];
  /**
   * For a registration made with a private key: the RFC 7638 thumbprint of the public key registered, so it is
   * re-used only with the private key it was made with (the key itself is never stored here).
   */
  readonly keyThumbprint?: string;
  /** `client_secret_expires_at` (seconds since the epoch, 0 for never), when a secret was issued. */
  readonly clientSecretExpiresAt?: number;
  /** Milliseconds since the epoch. */
  readonly registeredAt: number;
}

/**
 * An authorization server's metadata document as fetched and checked, with how long it may be used without fetching
 * it again. Public information (it holds no secret).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-4.2
 */
export interface StoredServerMetadata {
  /** The issuer the document was discovered for, as the client named it. */
  readonly issuer: string;
  /** The URL the document was fetched from. */
  readonly url: string;
  /** The document, as checked. */
  readonly document: JsonObject;
  /** Milliseconds since the epoch. */
  readonly fetchedAt: number;
  /** Until when (milliseconds since the epoch) it may be used without fetching it again. */
  readonly freshUntil: number;
}

/**
 * Storage of token sets and client credentials. Implementations must keep refresh tokens confidential.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.4
 */
export interface TokenStore {
  /** Every token set for a resource (canonical URI), most recently obtained first. */
  findTokens(resource: string): Promise<readonly StoredTokenSet[]>;
  /** Every token set, most recently obtained first. */
  listTokens(): Promise<readonly StoredTokenSet[]>;
  /** Saves a token set, replacing the one with the same key. Resolves only once it is durably written. */
  saveTokens(tokens: StoredTokenSet): Promise<void>;
  /** Deletes every token set matching all the given key fields (all of them for `{}`); returns how many. */
  deleteTokens(filter: Partial<TokenSetKey>): Promise<number>;
  /** The client credentials bound to an issuer. */
  getClient(issuer: string): Promise<StoredClient | undefined>;
  /** Saves client credentials, replacing those bound to the same issuer. */
  saveClient(client: StoredClient): Promise<void>;
  deleteClient(issuer: string): Promise<void>;
  /**
   * The metadata of an authorization server kept by {@link saveServerMetadata}, fresh or not. A store may leave both
   * out: every new client then fetches the metadata once.
   */
  getServerMetadata?(issuer: string): Promise<StoredServerMetadata | undefined>;
  /** Keeps an authorization server's metadata, replacing what was kept for the same issuer. */
  saveServerMetadata?(metadata: StoredServerMetadata): Promise<void>;
  /**
   * Runs `fn` while no other user of the same storage runs an `exclusive` of its own: how processes sharing one
   * store (several agent sessions, a background and a foreground refresh) take turns to refresh, so that one refresh
   * token is presented once, never twice (which an authorization server counts as reuse and answers by revoking the
   * whole family, RFC 9700 Section 4.14.2). `fn` re-reads the store once it runs. A store used by one process alone
   * may leave it out; the client then serialises within the process only.
   */
  exclusive?<T>(fn: () => Promise<T>): Promise<T>;
}

/** Whether a token set matches every field of a key filter. */
export function matchesKey(tokens: TokenSetKey, filter: Partial<TokenSetKey>): boolean {
  return (
    (filter.issuer === undefined || tokens.issuer === filter.issuer) &&
    (filter.resource === undefined || tokens.resource === filter.resource) &&
    (filter.clientId === undefined || tokens.clientId === filter.clientId)
  );
}

/** Whether two keys name the same token set. */
export function sameKey(a: TokenSetKey, b: TokenSetKey): boolean {
  return a.issuer === b.issuer && a.resource === b.resource && a.clientId === b.clientId;
}

/** Most recently obtained first. */
export function newestFirst(a: StoredTokenSet, b: StoredTokenSet): number {
  return b.obtainedAt - a.obtainedAt;
}
