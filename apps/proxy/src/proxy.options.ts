import type { AllowedUsers } from './upstream/allowed/allowed-users.js';
import type { UpstreamProviderOptions } from './upstream/providers/upstream-provider.js';

/**
 * The upstream authorization server the proxy signs people in at, with the one static client it holds there.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2
 */
export interface UpstreamOptions {
  /** The identity provider preset (`UPSTREAM_PROVIDER`) and what it reads from the environment. */
  readonly provider: UpstreamProviderOptions;
  /**
   * The upstream's issuer identifier: with `oidc`, its metadata is discovered from it (RFC 8414 3, OIDC Discovery
   * 4); a preset without one uses the service's base URL. Its host names the service on the proxy's pages.
   */
  readonly issuer: string;
  readonly clientId: string;
  /** Absent: the proxy is a public client upstream and relies on PKCE alone. */
  readonly clientSecret?: string;
  /** Scopes asked of the upstream; with `openid` the sign-in is OpenID Connect and carries a `nonce`. */
  readonly scopes: readonly string[];
  /** Upper bound, in milliseconds, on each upstream operation (discovery, code exchange, UserInfo). */
  readonly timeoutMs: number;
  /**
   * The proxy's callback, registered upstream: `<issuer>/upstream/callback` for the sign-in provider,
   * `<issuer>/connections/<name>/callback` for a connection (one per provider, against mix-up: RFC 9700 4.4.2).
   */
  readonly redirectUri: string;
  /** Who may sign in (`UPSTREAM_ALLOWED`); absent: everyone the upstream signs in. */
  readonly allowed?: AllowedUsers;
}

/** What the proxy adds to the authorization server it is built from. */
export interface ProxyOptions {
  readonly upstream: UpstreamOptions;
  /** `CONNECTIONS`: the providers beyond the sign-in one that people may connect for tools, by name. */
  readonly connections: ReadonlyMap<string, UpstreamOptions>;
  /** 32 bytes sealing upstream tokens, code verifiers and interaction handles at rest (AES-256-GCM). */
  readonly sealingKey: Uint8Array;
  /** Seconds a consent cookie lets a browser skip the consent page for one client. */
  readonly consentCookieTtl: number;
}

/** Injection token of the {@link ProxyOptions}. */
export const PROXY_OPTIONS = 'portcullis:proxy-options';

/**
 * How long the upstream `state` of one sign-in is valid: 10 minutes, the authorization code lifetime RFC 6749 4.1.2
 * recommends as a maximum, long enough for a person to sign in upstream.
 */
export const UPSTREAM_STATE_TTL_SECONDS = 600;
