// Keycloak for tests, on loopback, written from Keycloak's public documentation ("Securing Applications and Services
// Guide": OpenID Connect endpoints; "Server Administration Guide": realms, client scopes, offline access, refresh
// token revocation) with the quirks a client of Keycloak meets:
// - every realm is its own issuer, `{base}/realms/{realm}`, its endpoints under `{issuer}/protocol/openid-connect/`
//   (`auth`, `token`, `userinfo`, `certs`) and its discovery document at `{issuer}/.well-known/openid-configuration`;
//   a realm that does not exist answers 404 `{"error":"Realm does not exist"}` at every one of them; `master` is
//   always there;
// - a person signs in only at the realm they belong to;
// - PKCE is required with S256, as for a client whose "PKCE Method" is S256;
// - `profile` and `email` are default client scopes: granted, and their claims (`preferred_username`, `name`,
//   `email`, `email_verified`) present, whether or not the request names them, and the token answer's `scope`
//   says so;
// - `sub` is the user's UUID; the ID token carries `typ: "ID"` and `azp`, the client it was issued to;
// - every code exchange comes with a refresh token (with `offline_access`, an offline token), and each refresh
//   answers a new one. This fake spends the old one on use, as a realm with "Revoke Refresh Token" on (and a
//   maximum reuse of 0) does; a realm with it off, Keycloak's default, still takes the old one;
// - UserInfo answers the same claims with the access token.
import { startOidcFake, type OidcFake, type OidcFakeEndpoint } from './oidc-fake.js';

/** A user of a Keycloak realm. */
export interface KeycloakFakeUser {
  /** The username typed on the sign-in page, `preferred_username`. */
  readonly login: string;
  readonly password?: string;
  /** The realm the user belongs to. */
  readonly realm: string;
  /** The user's id, a UUID. */
  readonly sub: string;
  readonly email: string;
  /** Default true. */
  readonly emailVerified?: boolean;
  readonly name?: string;
}

export type KeycloakFake = OidcFake;

const ROUTE =
  /^\/realms\/([^/]+)\/(\.well-known\/openid-configuration|protocol\/openid-connect\/(?:auth|token|userinfo|certs))$/;
const ENDPOINTS = {
  '.well-known/openid-configuration': 'discovery',
  'protocol/openid-connect/auth': 'authorize',
  'protocol/openid-connect/token': 'token',
  'protocol/openid-connect/userinfo': 'userinfo',
  'protocol/openid-connect/certs': 'jwks',
} as const satisfies Record<string, OidcFakeEndpoint>;
/** The client scopes every client of a new realm gets as default scopes that show in the token's `scope`. */
const DEFAULT_SCOPES = ['profile', 'email'];

const claimsOf = (user: KeycloakFakeUser, scopes: readonly string[]) => ({
  sub: user.sub,
  ...(scopes.includes('profile')
    ? { preferred_username: user.login, ...(user.name ? { name: user.name } : {}) }
    : {}),
  ...(scopes.includes('email') ? { email: user.email, email_verified: user.emailVerified ?? true } : {}),
});

/**
 * Starts a Keycloak whose realms are `master`, `realms` and those of `users`.
 * @see https://www.keycloak.org/securing-apps/oidc-layers
 */
export async function startKeycloakFake(options: {
  users: readonly KeycloakFakeUser[];
  realms?: readonly string[];
}): Promise<KeycloakFake> {
  const realms = new Set(['master', ...(options.realms ?? []), ...options.users.map((user) => user.realm)]);
  const issuerOf = (baseUrl: string, realm: string) => `${baseUrl}/realms/${realm}`;
  return startOidcFake<KeycloakFakeUser>(
    {
      route: (pathname) => {
        const [, realm, path] = ROUTE.exec(pathname) ?? [];
        if (!realm || !path) return undefined;
        return { realm, endpoint: ENDPOINTS[path as keyof typeof ENDPOINTS] };
      },
      missingRealm: (realm) =>
        realms.has(realm) ? undefined : { status: 404, body: { error: 'Realm does not exist' } },
      discovery: (baseUrl, realm) => {
        const issuer = issuerOf(baseUrl, realm);
        const endpoints = `${issuer}/protocol/openid-connect`;
        return {
          issuer,
          authorization_endpoint: `${endpoints}/auth`,
          token_endpoint: `${endpoints}/token`,
          introspection_endpoint: `${endpoints}/token/introspect`,
          userinfo_endpoint: `${endpoints}/userinfo`,
          end_session_endpoint: `${endpoints}/logout`,
          jwks_uri: `${endpoints}/certs`,
          grant_types_supported: [
            'authorization_code',
            'implicit',
            'refresh_token',
            'password',
            'client_credentials',
            'urn:ietf:params:oauth:grant-type:device_code',
            'urn:openid:params:grant-type:ciba',
          ],
          response_types_supported: [
            'code',
            'none',
            'id_token',
            'token',
            'id_token token',
            'code id_token',
            'code token',
            'code id_token token',
          ],
          subject_types_supported: ['public', 'pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
          response_modes_supported: [
            'query',
            'fragment',
            'form_post',
            'query.jwt',
            'fragment.jwt',
            'form_post.jwt',
          ],
          token_endpoint_auth_methods_supported: [
            'private_key_jwt',
            'client_secret_basic',
            'client_secret_post',
            'tls_client_auth',
            'client_secret_jwt',
          ],
          claims_supported: [
            'aud',
            'sub',
            'iss',
            'auth_time',
            'name',
            'given_name',
            'family_name',
            'preferred_username',
            'email',
            'acr',
          ],
          scopes_supported: ['openid', 'offline_access', 'profile', 'email', 'address', 'phone', 'roles'],
          code_challenge_methods_supported: ['plain', 'S256'],
        };
      },
      admitsUser: (realm, user) => user.realm === realm,
      grantedScopes: (requested) => [...new Set([...requested, ...DEFAULT_SCOPES])],
      issuesRefreshToken: () => true,
      idTokenClaims: (baseUrl, { realm, user, scopes, clientId }) => ({
        iss: issuerOf(baseUrl, realm),
        typ: 'ID',
        azp: clientId,
        ...claimsOf(user, scopes),
      }),
      userinfo: ({ user, scopes }) => claimsOf(user, scopes),
    },
    options.users,
  );
}
