import type { ExtensionRegistry } from '@portcullis/extensions';
import type { ScopeHierarchy } from '@portcullis/protocol';
import type { BrowserOriginsOptions } from '../http/browser-origins.js';

/**
 * How access tokens are validated.
 *
 * - `auto` (default): a token shaped like a JWT (three dot-separated segments) is verified locally against the
 *   issuer's JWK set; any other token is opaque and goes to introspection when {@link TokenOptions.introspection}
 *   is configured, and is rejected otherwise.
 * - `jwt`: only JWT access tokens are accepted.
 * - `introspection`: every token goes to the authorization server's introspection endpoint.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068 RFC 9068 (JWT access tokens)}
 * @see {@link https://www.rfc-editor.org/rfc/rfc7662 RFC 7662 (token introspection)}
 */
export type TokenValidationMode = 'auto' | 'jwt' | 'introspection';

/**
 * The resource server's own client credentials at the authorization server, for RFC 7662 introspection. They are
 * sent with `client_secret_basic` (RFC 6749 Section 2.3.1).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7662#section-2.1 RFC 7662 Section 2.1}
 */
export interface IntrospectionOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The introspection endpoint; default: `introspection_endpoint` from the issuer's metadata. */
  readonly endpoint?: string;
  /** Which of the `authorizationServers` introspects opaque tokens; default: the first one. */
  readonly issuer?: string;
}

/**
 * Token validation settings; every member has a safe default.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-4 RFC 9068 Section 4 (validating JWT access tokens)}
 */
export interface TokenOptions {
  /** Default `auto`. */
  readonly mode?: TokenValidationMode;
  /**
   * JWS algorithms accepted in a JWT access token's header. Default: every asymmetric algorithm (`ES*`, `PS*`,
   * `RS*`, `EdDSA`, `Ed25519`). `none` and the `HS*` family are refused at boot: a shared secret cannot tell the
   * authorization server from anyone else holding it, and `HS256` keyed with the public key is the classic
   * algorithm-confusion forgery.
   */
  readonly algorithms?: readonly string[];
  /** Leeway on `exp`, `nbf` and `iat`, in seconds. Default 30, at most 300. */
  readonly clockSkewSeconds?: number;
  /** Longest token accepted, in characters; longer ones are rejected before any parsing. Default 8192. */
  readonly maxTokenLength?: number;
  /** How many validated tokens are remembered (by hash). Default 10000. */
  readonly cacheMaxEntries?: number;
  /**
   * How long a validated token is remembered, in seconds, and never past its `exp`. Default 30; at most 86400.
   * With introspection this is how long a token revoked at the authorization server may still be accepted; `0`
   * remembers nothing, so every request is validated afresh (with introspection: one request to the
   * authorization server per request). A JWT validated locally is refused at its `exp` however short this is.
   */
  readonly cacheTtlSeconds?: number;
  /** Remote JWK set behaviour. */
  readonly jwks?: {
    /**
     * After a fetch, how long an unknown `kid` waits before it may trigger another one; meanwhile it is
     * `invalid_token`. Keep it shorter than the time the authorization server publishes a key before signing with it
     * (Portcullis: its `SIGNING_KEY_ACTIVATION_DELAY` allows for 30 s). Default 30000 ms (jose's), at most 300000;
     * under 1000 ms, 1000 ms is kept (so `0` cannot make every unknown `kid` a fetch).
     */
    readonly cooldownMs?: number;
    /**
     * How long fetched keys are used before they are fetched again (less when the key set's `Cache-Control` says
     * so, but never under the cooldown nor under 1000 ms). Default 600000 ms.
     */
    readonly cacheMaxAgeMs?: number;
    /**
     * How much longer the keys held keep verifying while they cannot be fetched again (the authorization server is
     * away); after that, 503. Default 3600000 ms.
     */
    readonly staleIfErrorMs?: number;
    /** Timeout of one JWK set request. Default 5000 ms. */
    readonly timeoutMs?: number;
  };
  /** Authorization server metadata discovery (for `jwks_uri` and `introspection_endpoint`). */
  readonly discovery?: {
    /** Timeout of one metadata request. Default 5000 ms. */
    readonly timeoutMs?: number;
    /** How long a fetched metadata document is used. Default 3600000 ms. */
    readonly maxAgeMs?: number;
    /** After a failed discovery, how long requests fail fast before it is tried again. Default 5000 ms. */
    readonly failureBackoffMs?: number;
  };
  readonly introspection?: IntrospectionOptions;
}

/**
 * What makes an app a protected resource.
 *
 * @example
 * ```ts
 * ResourceServerModule.forRoot({
 *   resource: 'https://mcp.example.com/mcp',
 *   authorizationServers: ['https://auth.example.com'],
 *   scopesSupported: ['notes:read', 'notes:write'],
 *   scopeHierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
 * });
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-2 RFC 9728 Section 2}
 */
export interface ResourceServerOptions {
  /**
   * The resource identifier: the canonical URI clients send as `resource` and tokens carry as `aud`. It is
   * canonicalised (lowercase scheme and host, no default port, no lone `/`); https, or http on a loopback host.
   */
  readonly resource: string;
  /** Issuer identifiers of the authorization servers whose tokens are accepted; at least one. */
  readonly authorizationServers: readonly string[];
  /** Published as `scopes_supported`; never `offline_access`. Also the 401 challenge's default `scope`. */
  readonly scopesSupported?: readonly string[];
  /** Broad scope to the narrower scopes it implies; used whenever sufficiency is decided. */
  readonly scopeHierarchy?: ScopeHierarchy;
  /** The MCP authorization revision in force (`2025-06-18`, `2025-11-25` or `2026-07-28`); default the latest. */
  readonly revision?: string;
  /** Published as `resource_name`. */
  readonly resourceName?: string;
  /** Extensions contributing metadata fields and challenge parameters. */
  readonly extensions?: ExtensionRegistry;
  readonly tokens?: TokenOptions;
  /**
   * Web origins whose pages may call the resource from a browser: granted CORS on every route but the (public)
   * metadata document, and let through the MCP endpoint's Origin check. Default: none, only the resource's own
   * origin passes that check.
   */
  readonly browserOrigins?: BrowserOriginsOptions;
}
