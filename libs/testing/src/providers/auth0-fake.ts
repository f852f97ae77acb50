// An Auth0 tenant for tests, on loopback, written from Auth0's public documentation ("Authentication API",
// "Locate the OIDC discovery document", "ID token structure", "Get access tokens", "Get refresh tokens") with the
// quirks a client of Auth0 meets:
// - the issuer is the tenant's URL with a trailing slash, `{base}/`, in the discovery document and in every ID
//   token's `iss`, while the endpoints hang off the URL without it: `{base}/authorize`, `{base}/oauth/token`,
//   `{base}/userinfo`, `{base}/.well-known/jwks.json`, and the discovery document at
//   `{base}/.well-known/openid-configuration`;
// - the `audience` authorization parameter names the API the access token is for; an audience that is not one of
//   the tenant's APIs is sent back to the client as `access_denied` with `Service not found: <audience>`. Auth0
//   then issues a JWT access token for that API, while this fake's access tokens stay opaque: a test reads the API
//   a token was issued for with `audienceOf`;
// - a refresh token only with the `offline_access` scope; PKCE (S256) is required by this fake, as Auth0 does of a
//   public client;
// - `sub` is the connection and the user id joined by a `|` (`auth0|abc123`); `name` and `nickname` with
//   `profile`, `email` and `email_verified` with `email`, in the ID token and at UserInfo.
import { startOidcFake, type OidcFake, type OidcFakeError } from './oidc-fake.js';

/** A user of the tenant's database connection. */
export interface Auth0FakeUser {
  /** The name typed on the sign-in page (the address). */
  readonly login: string;
  readonly password?: string;
  /** `{connection}|{id}`, e.g. `auth0|abc123`. */
  readonly sub: string;
  readonly email: string;
  /** Default true. */
  readonly emailVerified?: boolean;
  readonly name?: string;
}

export interface Auth0Fake extends OidcFake {
  /** The API (`audience`) an access token the fake issued is for; undefined without one, or for another string. */
  audienceOf(accessToken: string): string | undefined;
}

const PATHS = {
  '/.well-known/openid-configuration': 'discovery',
  '/authorize': 'authorize',
  '/oauth/token': 'token',
  '/userinfo': 'userinfo',
  '/.well-known/jwks.json': 'jwks',
} as const;

const claimsOf = (user: Auth0FakeUser, scopes: readonly string[]) => ({
  sub: user.sub,
  ...(scopes.includes('profile')
    ? { nickname: user.login.split('@')[0], ...(user.name ? { name: user.name } : {}) }
    : {}),
  ...(scopes.includes('email') ? { email: user.email, email_verified: user.emailVerified ?? true } : {}),
});

/**
 * Starts an Auth0 tenant whose APIs (the audiences it issues access tokens for) are `apis`.
 * @see https://auth0.com/docs/api/authentication
 */
export async function startAuth0Fake(options: {
  users: readonly Auth0FakeUser[];
  apis?: readonly string[];
}): Promise<Auth0Fake> {
  const apis = new Set(options.apis ?? []);
  const fake = await startOidcFake<Auth0FakeUser>(
    {
      route: (pathname) => {
        const endpoint = PATHS[pathname as keyof typeof PATHS];
        return endpoint ? { endpoint, realm: '' } : undefined;
      },
      discovery: (baseUrl) => ({
        issuer: `${baseUrl}/`,
        authorization_endpoint: `${baseUrl}/authorize`,
        token_endpoint: `${baseUrl}/oauth/token`,
        device_authorization_endpoint: `${baseUrl}/oauth/device/code`,
        userinfo_endpoint: `${baseUrl}/userinfo`,
        jwks_uri: `${baseUrl}/.well-known/jwks.json`,
        registration_endpoint: `${baseUrl}/oidc/register`,
        revocation_endpoint: `${baseUrl}/oauth/revoke`,
        end_session_endpoint: `${baseUrl}/oidc/logout`,
        scopes_supported: [
          'openid',
          'profile',
          'offline_access',
          'name',
          'given_name',
          'family_name',
          'nickname',
          'email',
          'email_verified',
          'picture',
          'created_at',
          'identities',
          'phone',
          'address',
        ],
        response_types_supported: [
          'code',
          'token',
          'id_token',
          'code token',
          'code id_token',
          'token id_token',
          'code token id_token',
        ],
        code_challenge_methods_supported: ['S256', 'plain'],
        response_modes_supported: ['query', 'fragment', 'form_post'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['HS256', 'RS256', 'PS256'],
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'private_key_jwt',
        ],
        claims_supported: [
          'aud',
          'auth_time',
          'created_at',
          'email',
          'email_verified',
          'exp',
          'family_name',
          'given_name',
          'iat',
          'identities',
          'iss',
          'name',
          'nickname',
          'phone_number',
          'picture',
          'sub',
        ],
        request_uri_parameter_supported: false,
        request_parameter_supported: false,
      }),
      refuseAuthorization: (params): OidcFakeError | undefined => {
        const audience = params.get('audience');
        return audience && !apis.has(audience)
          ? { error: 'access_denied', error_description: `Service not found: ${audience}` }
          : undefined;
      },
      issuesRefreshToken: ({ scopes }) => scopes.includes('offline_access'),
      idTokenClaims: (baseUrl, { user, scopes }) => ({ iss: `${baseUrl}/`, ...claimsOf(user, scopes) }),
      userinfo: ({ user, scopes }) => claimsOf(user, scopes),
    },
    options.users,
  );
  return {
    ...fake,
    audienceOf: (accessToken) => fake.authorizationOf(accessToken)?.params.get('audience') || undefined,
  };
}
