// Okta's authorization servers for tests, on loopback, written from Okta's public developer documentation ("OpenID
// Connect & OAuth 2.0 API", "Authorization servers", "Refresh access tokens", "Error codes") with the quirks a
// client of Okta meets:
// - two kinds of authorization server: the org authorization server, whose issuer is the Okta domain itself
//   (`{base}`) while its endpoints sit under `{base}/oauth2/v1/` and its discovery document at
//   `{base}/.well-known/openid-configuration`; and custom authorization servers (`default`, or an id), whose issuer
//   is `{base}/oauth2/{authServerId}`, with the endpoints `{issuer}/v1/authorize`, `/v1/token`, `/v1/userinfo`,
//   `/v1/keys` and the discovery document at `{issuer}/.well-known/openid-configuration`;
// - an authorization server the org does not have answers 404 with Okta's error object (`E0000007`) at every one
//   of its endpoints;
// - PKCE takes S256 only (`code_challenge_methods_supported`), and the fake requires it;
// - a refresh token only with the `offline_access` scope;
// - `sub` is the Okta user id (`00u...`), the sign-in name (an address) is `preferred_username` with `profile`;
//   `email` and `email_verified` with `email`; the `groups` claim (the person's group names) only when the `groups`
//   scope was asked; the ID token carries `ver: 1` and the `amr` of a password sign-in;
// - UserInfo answers the same scope-dependent claims with the access token.
import { startOidcFake, type OidcFake, type OidcFakeEndpoint } from './oidc-fake.js';

/** A person in the Okta org. */
export interface OktaFakeUser {
  /** The Okta username typed on the sign-in page (an address), `preferred_username`. */
  readonly login: string;
  readonly password?: string;
  /** The Okta user id, `00u...`. */
  readonly sub: string;
  readonly email: string;
  /** Default true. */
  readonly emailVerified?: boolean;
  readonly name?: string;
  /** The names of the groups the person belongs to. */
  readonly groups?: readonly string[];
}

export type OktaFake = OidcFake;

/** The realm the org authorization server is routed as; an authorization server id is never empty. */
const ORG = '';
const ENDPOINTS = {
  'v1/authorize': 'authorize',
  'v1/token': 'token',
  'v1/userinfo': 'userinfo',
  'v1/keys': 'jwks',
} as const satisfies Record<string, OidcFakeEndpoint>;
const ROUTE = /^\/oauth2\/(?:([A-Za-z0-9]+)\/)?(v1\/(?:authorize|token|userinfo|keys))$/;
const CUSTOM_DISCOVERY = /^\/oauth2\/([A-Za-z0-9]+)\/\.well-known\/openid-configuration$/;

const claimsOf = (user: OktaFakeUser, scopes: readonly string[]) => ({
  sub: user.sub,
  ...(scopes.includes('profile')
    ? { preferred_username: user.login, ...(user.name ? { name: user.name } : {}) }
    : {}),
  ...(scopes.includes('email') ? { email: user.email, email_verified: user.emailVerified ?? true } : {}),
  ...(scopes.includes('groups') ? { groups: [...(user.groups ?? [])] } : {}),
});

/**
 * Starts an Okta org with its org authorization server and the custom authorization servers
 * `authorizationServers` (default `['default']`).
 * @see https://developer.okta.com/docs/concepts/auth-servers/
 */
export async function startOktaFake(options: {
  users: readonly OktaFakeUser[];
  authorizationServers?: readonly string[];
}): Promise<OktaFake> {
  const servers = new Set(options.authorizationServers ?? ['default']);
  const issuerOf = (baseUrl: string, realm: string) =>
    realm === ORG ? baseUrl : `${baseUrl}/oauth2/${realm}`;
  const endpointsOf = (baseUrl: string, realm: string) =>
    `${baseUrl}/oauth2${realm === ORG ? '' : `/${realm}`}/v1`;
  return startOidcFake<OktaFakeUser>(
    {
      route: (pathname) => {
        if (pathname === '/.well-known/openid-configuration') return { endpoint: 'discovery', realm: ORG };
        const [, server] = CUSTOM_DISCOVERY.exec(pathname) ?? [];
        if (server) return { endpoint: 'discovery', realm: server };
        const [, realm = ORG, path] = ROUTE.exec(pathname) ?? [];
        return path ? { endpoint: ENDPOINTS[path as keyof typeof ENDPOINTS], realm } : undefined;
      },
      missingRealm: (realm) =>
        realm === ORG || servers.has(realm)
          ? undefined
          : {
              status: 404,
              body: {
                errorCode: 'E0000007',
                errorSummary: `Not found: Resource not found: ${realm} (AuthorizationServer)`,
                errorLink: 'E0000007',
                errorId: 'oae-fake',
                errorCauses: [],
              },
            },
      discovery: (baseUrl, realm) => {
        const endpoints = endpointsOf(baseUrl, realm);
        return {
          issuer: issuerOf(baseUrl, realm),
          authorization_endpoint: `${endpoints}/authorize`,
          token_endpoint: `${endpoints}/token`,
          userinfo_endpoint: `${endpoints}/userinfo`,
          jwks_uri: `${endpoints}/keys`,
          introspection_endpoint: `${endpoints}/introspect`,
          revocation_endpoint: `${endpoints}/revoke`,
          end_session_endpoint: `${endpoints}/logout`,
          response_types_supported: ['code', 'id_token', 'code id_token', 'code token', 'id_token token'],
          response_modes_supported: ['query', 'fragment', 'form_post', 'okta_post_message'],
          grant_types_supported: ['authorization_code', 'implicit', 'refresh_token', 'password'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'groups'],
          token_endpoint_auth_methods_supported: [
            'client_secret_basic',
            'client_secret_post',
            'client_secret_jwt',
            'private_key_jwt',
            'none',
          ],
          claims_supported: [
            'iss',
            'ver',
            'sub',
            'aud',
            'iat',
            'exp',
            'jti',
            'auth_time',
            'amr',
            'idp',
            'nonce',
            'name',
            'preferred_username',
            'email',
            'email_verified',
            'groups',
          ],
          code_challenge_methods_supported: ['S256'],
        };
      },
      issuesRefreshToken: ({ scopes }) => scopes.includes('offline_access'),
      idTokenClaims: (baseUrl, { realm, user, scopes }) => ({
        iss: issuerOf(baseUrl, realm),
        ver: 1,
        amr: ['pwd'],
        ...claimsOf(user, scopes),
      }),
      userinfo: ({ user, scopes }) => claimsOf(user, scopes),
    },
    options.users,
  );
}
