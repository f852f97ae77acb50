import type { ExtensionRegistry } from '@portcullis/extensions';
import type { ScopeHierarchy } from '@portcullis/protocol';
import type { RevisionId } from '@portcullis/revisions';
import type { ClientIdMetadataDocumentsOptions } from '../clients/metadata-documents/client-id-metadata-documents.options.js';

/**
 * A protected resource this authorization server issues tokens for (RFC 8707): its canonical URI, which becomes
 * the token audience, and the scopes it understands.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export interface ResourceDefinition {
  /**
   * Canonical resource URI (MCP "Canonical Server URI"); compared byte for byte with the canonical form of
   * `resource`.
   */
  readonly uri: string;
  /** Scopes the resource defines; also the default when a request names none. */
  readonly scopesSupported: readonly string[];
  /** Broader scope -> the scopes it implies (`notes` -> `notes:read notes:write`). */
  readonly scopeHierarchy?: ScopeHierarchy;
  /** Shown on the consent page. */
  readonly name?: string;
}

/** Lifetimes, in seconds. */
export interface TokenLifetimes {
  readonly accessToken: number;
  readonly authorizationCode: number;
  readonly idToken: number;
  /** A refresh token unused this long expires (rotation renews it). */
  readonly refreshTokenIdle: number;
  /** No refresh family outlives this, counted from the authorization. */
  readonly refreshTokenAbsolute: number;
  /**
   * Seconds after its rotation during which a refresh token presented again by the same client, for the same
   * resource, scope and key, gets the response its first use got instead of revoking its family (0: strict reuse
   * detection, RFC 9700 4.14.2). At most 60.
   */
  readonly refreshTokenReuseGrace: number;
  /**
   * Seconds after its redemption during which a code presented again by the same client with the same redirect URI,
   * code verifier, resource and key, while its grant stands and its refresh token is unused, gets the response the
   * redemption got instead of revoking its grant (0: every second redemption is refused, RFC 6749 4.1.2). At most 60.
   */
  readonly authorizationCodeReuseGrace: number;
  readonly loginSession: number;
  /** A pending authorization request waits this long for login and consent. */
  readonly interaction: number;
}

/**
 * Dynamic client registration (RFC 7591): whether `/register` exists, and the initial access token that protects
 * it when set (RFC 7591 3, sent as a bearer token).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3
 */
export interface RegistrationOptions {
  readonly enabled: boolean;
  readonly initialAccessToken?: string;
  /**
   * Seconds after which the housekeeping sweep deletes a dynamically registered client that has completed no
   * authorization (`unusedClient`), or that has had no live grant since its last authorization (`idleClient`).
   */
  readonly unusedClientTtl?: number;
  readonly idleClientTtl?: number;
}

/**
 * How signing keys are shared between instances and rotated, in seconds.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys
 */
export interface SigningKeyOptions {
  /**
   * Every instance re-reads the keys this often, so a rotation made by another instance or by `portcullis-admin
   * keys rotate` is picked up; a retired key stays published this much longer than the longest token lifetime,
   * because an instance may sign with it until its next reload. Default 30.
   */
  readonly reloadInterval: number;
  /** `Cache-Control: max-age` of `jwks_uri`: how long a resource server may keep the key set. Default 300. */
  readonly jwksMaxAge?: number;
  /**
   * The longest refetch cooldown of the resource servers verifying this server's tokens (jose's `cooldownDuration`,
   * Portcullis's `JWKS_REFETCH_COOLDOWN`). Default 30, jose's and Portcullis's default.
   */
  readonly resourceServerRefetchCooldown?: number;
  /**
   * How long after `keys rotate` the new key starts signing: until then it is only published, so every resource
   * server's key set has it before a token needs it. Default `jwksMaxAge` + `reloadInterval` +
   * `resourceServerRefetchCooldown`.
   */
  readonly activationDelay?: number;
}

/** Everything the authorization-server feature modules need, assembled by the app from its configuration. */
export interface AuthorizationServerOptions {
  /** The issuer identifier, published byte for byte as `issuer` (RFC 8414 section 2). */
  readonly issuer: string;
  readonly revision: RevisionId;
  readonly resources: readonly ResourceDefinition[];
  readonly lifetimes: TokenLifetimes;
  /** Seconds security events are kept before the housekeeping sweep deletes them. */
  readonly securityEventRetention?: number;
  /** 32-byte key encrypting private signing keys at rest; without it they are stored in the clear. */
  readonly keyEncryptionKey?: Uint8Array;
  /** Secret signing the session and browser-binding cookies. */
  readonly cookieSecret: Uint8Array;
  readonly extensions: ExtensionRegistry;
  /**
   * Requests per minute per client address: `token` on `/token` and `/revoke`, `login` on login submissions,
   * `register` on `/register`.
   */
  readonly rateLimits: { readonly token: number; readonly login: number; readonly register: number };
  /** Dynamic client registration (RFC 7591) at `/register`; absent means off. */
  readonly registration?: RegistrationOptions;
  /** How signing keys are shared between instances; see {@link SigningKeyOptions}. */
  readonly signingKeys?: SigningKeyOptions;
  /** Redis for the rate limiter's counters; in memory when absent. */
  readonly redisUrl?: string;
  /** Extra text on the login page (the development banner naming the demo user). */
  readonly loginHint?: string;
  /**
   * Private-use URI schemes (RFC 8252 7.1) clients may register redirect URIs with, lowercase (`cursor`); absent or
   * empty: none, only https and loopback http (MCP "Communication Security").
   */
  readonly allowedRedirectSchemes?: readonly string[];
  /** Client ID metadata documents (an https URL as `client_id`); absent means off. */
  readonly clientIdMetadataDocuments?: ClientIdMetadataDocumentsOptions;
}

/** Injection token of the {@link AuthorizationServerOptions}. */
export const AUTHORIZATION_SERVER_OPTIONS = 'portcullis:authorization-server-options';
