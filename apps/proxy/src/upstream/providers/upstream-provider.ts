import type { UserProfile } from '@portcullis/authorization';
import type * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../proxy.options.js';

/**
 * The presets `UPSTREAM_PROVIDER` names: `oidc` (discovery, the default), `github`, `google`, `entra`, `okta`,
 * `auth0`, `keycloak`, and `oauth2` (explicit endpoints).
 */
export const UPSTREAM_PROVIDER_NAMES = [
  'oidc',
  'github',
  'google',
  'entra',
  'okta',
  'auth0',
  'keycloak',
  'oauth2',
] as const;

export type UpstreamProviderName = (typeof UPSTREAM_PROVIDER_NAMES)[number];

/** The provider preset chosen by `UPSTREAM_PROVIDER`, with what it reads from the environment. */
export type UpstreamProviderOptions =
  /** OpenID Connect or RFC 8414 discovery from `UpstreamOptions.issuer`. */
  | { readonly name: 'oidc' }
  /** GitHub.com or GitHub Enterprise Server: `baseUrl` serves the OAuth endpoints, `apiUrl` the REST API. */
  | { readonly name: 'github'; readonly baseUrl: string; readonly apiUrl: string }
  /** Google's OpenID Connect provider at `baseUrl` (its issuer, `https://accounts.google.com`). */
  | { readonly name: 'google'; readonly baseUrl: string }
  /**
   * Microsoft Entra ID's v2.0 endpoints of `tenant` (a tenant ID, `common`, `organizations` or `consumers`) at
   * `baseUrl` (`https://login.microsoftonline.com`, or a national cloud's).
   */
  | { readonly name: 'entra'; readonly baseUrl: string; readonly tenant: string }
  /** An Okta org at `baseUrl` and one of its authorization servers (`default`, an id, or `org`). */
  | { readonly name: 'okta'; readonly baseUrl: string; readonly authorizationServer: string }
  /** An Auth0 tenant at `baseUrl`; `audience` is the API identifier its access tokens are asked for. */
  | { readonly name: 'auth0'; readonly baseUrl: string; readonly audience?: string }
  /** A realm of the Keycloak server at `baseUrl`. */
  | { readonly name: 'keycloak'; readonly baseUrl: string; readonly realm: string }
  /** A plain OAuth 2.0 server without metadata, and a JSON API naming the person. */
  | {
      readonly name: 'oauth2';
      readonly authorizationEndpoint: string;
      readonly tokenEndpoint: string;
      readonly userinfoEndpoint: string;
      /** The member of the UserInfo answer that is the person's stable identifier (`sub`, `id`). */
      readonly subjectClaim: string;
      /** How the client secret goes to the token endpoint (RFC 6749 2.3.1). */
      readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
    };

/**
 * Who signed in, as the provider states it. A local user is keyed by (`provider`, `issuer`, `subject`), never by an
 * address or a login name, which their owners can change and the provider can reassign.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#ClaimStability
 */
export interface ProviderIdentity {
  /** What the subject is unique within: the issuer (OpenID Connect, RFC 8414), or the API base (GitHub). */
  readonly issuer: string;
  /** The provider's stable identifier of the person: `sub`, GitHub's numeric `id`. */
  readonly subject: string;
  /** A name to show and log; never a key. */
  readonly displayName: string;
  /** The provider's login name (GitHub's `login`), for the allowed-user rules; it can change. */
  readonly login?: string;
  /** Google: the Workspace domain of the ID token's `hd`, for the allowed-user rules; absent for a consumer account. */
  readonly hostedDomain?: string;
  /** Entra: the tenant of the validated ID token's `tid`, for the allowed-user rules. */
  readonly tenantId?: string;
  /**
   * The person's `name`, `email` and `email_verified` as the provider stated them (`emailVerified` true only when it
   * says the address beside it was verified), for the proxy's own `profile` and `email` claims.
   */
  readonly profile: UserProfile;
}

/** The tokens of one code exchange, as openid-client checked them. */
export type UpstreamTokenResponse = oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;

/**
 * One identity provider's wire: where its endpoints are, what its authorization request needs beyond RFC 6749 and
 * PKCE, how its token endpoint answers, and how it says who signed in. The OAuth itself (state, PKCE S256, the
 * RFC 9207 `iss` check, `nonce`, the code exchange, deadlines) is `UpstreamClient`'s, the same for every provider.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 */
export interface UpstreamProvider {
  readonly name: UpstreamProviderName;
  /** OpenID Connect: a `nonce` is sent and an ID token is required in the token response. */
  readonly openIdConnect: boolean;
  /**
   * The provider validates the ID token itself in {@link identity} (Entra's tenant-templated issuer), having taken it
   * out of the token response in {@link tokenResponse}; openid-client then neither expects one nor checks `nonce`.
   */
  readonly validatesIdToken?: boolean;
  /**
   * The authorization server's metadata (RFC 8414 2): discovered, or written from the provider's documentation.
   * Asked at most once an hour, within `UPSTREAM_TIMEOUT_MS`.
   *
   * @throws UpstreamError when the upstream cannot be used (no PKCE S256)
   */
  metadata(): Promise<oidc.ServerMetadata>;
  /**
   * The `prompt` value with which the provider signs the person in again, or lets them pick another account, when the
   * flow asks it (`prompt=login` or `select_account` at the proxy); default `login` (OpenID Connect Core 3.1.2.1).
   */
  readonly signInAgainPrompt?: string;
  /** Parameters of the authorization request beyond the OAuth ones (`access_type`, `audience`, ...). */
  authorizationParameters(): Readonly<Record<string, string>>;
  /**
   * The token endpoint's answer brought to RFC 6749 5.1 / 5.2 form before openid-client checks it, for a provider
   * that answers otherwise; absent for one that follows the RFC.
   */
  tokenResponse?(response: Response): Promise<Response>;
  /**
   * Who signed in, from the ID token and the provider's API, asked with the upstream access token. `checks.nonce` is
   * this sign-in's, for a provider that {@link validatesIdToken}.
   */
  identity(
    config: oidc.Configuration,
    tokens: UpstreamTokenResponse,
    checks: { readonly nonce?: string },
  ): Promise<ProviderIdentity>;
  /**
   * Whether the person belongs to `group` at the provider (GitHub: an organization, or `organization/team`), asked
   * with their upstream access token; for the allowed-user rules. Absent: the provider has no groups to ask about.
   */
  isMember?(
    config: oidc.Configuration,
    tokens: { readonly accessToken: string },
    identity: ProviderIdentity,
    group: string,
  ): Promise<boolean>;
  /**
   * Ends the person's grant to the proxy at the provider, for a provider with an API of its own for it (GitHub);
   * absent, RFC 7009 revocation where the metadata names a `revocation_endpoint`.
   */
  revoke?(
    client: { readonly clientId: string; readonly clientSecret?: string },
    tokens: { readonly accessToken: string; readonly refreshToken?: string },
  ): Promise<'revoked' | 'unsupported'>;
}

/** Builds the provider `options.provider` names. */
export type UpstreamProviderFactory = (options: UpstreamOptions) => UpstreamProvider;
