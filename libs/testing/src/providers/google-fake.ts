// Google's OpenID Connect provider for tests, on loopback, written from Google's public documentation ("OpenID
// Connect", "Using OAuth 2.0 for Web Server Applications") with the quirks a client of Google meets:
// - the discovery document at `/.well-known/openid-configuration`, the issuer being the base URL (Google's is
//   `https://accounts.google.com`), its endpoints on paths Google uses (`/o/oauth2/v2/auth`, `/token`,
//   `/v1/userinfo`, `/oauth2/v3/certs`);
// - a refresh token only when the authorization request asked `access_type=offline` and `prompt=consent` (Google
//   issues one at the first consent only; asking consent again is how a client gets a new one);
// - the ID token's `hd` claim names the Google Workspace domain of an account that belongs to one, and is absent for
//   a consumer account, whatever domain its address has;
// - UserInfo answers `sub`, `email`, `email_verified`, `name` and `hd` with the access token;
// - `prompt` is one or more of `none`, `consent` and `select_account`: an authorization request with another value
//   (`login`) is refused with `invalid_request`;
// - a refresh answers a new access token without a new refresh token: Google does not rotate them.
import { startOidcFake, type OidcFake, type OidcFakeAuthorization } from './oidc-fake.js';

/** A Google account. */
export interface GoogleFakeUser {
  /** The name typed on the sign-in page (Google: the address). */
  readonly login: string;
  readonly password?: string;
  /** Google's stable account id. */
  readonly sub: string;
  readonly email: string;
  /** Default true. */
  readonly emailVerified?: boolean;
  readonly name?: string;
  /** The Workspace domain; unset for a consumer (gmail.com) account. */
  readonly hd?: string;
}

export type GoogleFake = OidcFake;

const PATHS = {
  '/.well-known/openid-configuration': 'discovery',
  '/o/oauth2/v2/auth': 'authorize',
  '/token': 'token',
  '/v1/userinfo': 'userinfo',
  '/oauth2/v3/certs': 'jwks',
} as const;

const claimsOf = (user: GoogleFakeUser, scopes: readonly string[]) => ({
  sub: user.sub,
  ...(scopes.includes('email') ? { email: user.email, email_verified: user.emailVerified ?? true } : {}),
  ...(scopes.includes('profile') && user.name ? { name: user.name } : {}),
  ...(user.hd ? { hd: user.hd } : {}),
});

export async function startGoogleFake(options: { users: readonly GoogleFakeUser[] }): Promise<GoogleFake> {
  return startOidcFake<GoogleFakeUser>(
    {
      route: (pathname) => {
        const endpoint = PATHS[pathname as keyof typeof PATHS];
        return endpoint ? { endpoint, realm: '' } : undefined;
      },
      discovery: (baseUrl) => ({
        issuer: baseUrl,
        authorization_endpoint: `${baseUrl}/o/oauth2/v2/auth`,
        token_endpoint: `${baseUrl}/token`,
        userinfo_endpoint: `${baseUrl}/v1/userinfo`,
        jwks_uri: `${baseUrl}/oauth2/v3/certs`,
        response_types_supported: ['code', 'token', 'id_token', 'code token', 'code id_token', 'none'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid', 'email', 'profile'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        claims_supported: ['aud', 'email', 'email_verified', 'exp', 'hd', 'iat', 'iss', 'name', 'sub'],
        code_challenge_methods_supported: ['plain', 'S256'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
      }),
      // `prompt` takes only `none`, `consent` and `select_account`; anything else (`login`) is refused.
      refuseAuthorization: (params) => {
        const prompts = (params.get('prompt') ?? '').split(' ').filter(Boolean);
        const unknown = prompts.filter((each) => !['none', 'consent', 'select_account'].includes(each));
        return unknown.length > 0
          ? { error: 'invalid_request', error_description: `Invalid prompt: ${unknown.join(' ')}` }
          : undefined;
      },
      // Google's refresh answer has no new refresh token: the one redeemed stays valid.
      rotatesRefreshTokens: false,
      issuesRefreshToken: ({ params }: OidcFakeAuthorization<GoogleFakeUser>) =>
        params.get('access_type') === 'offline' && params.get('prompt') === 'consent',
      idTokenClaims: (baseUrl, { user, scopes }) => ({ iss: baseUrl, ...claimsOf(user, scopes) }),
      userinfo: ({ user, scopes }) => claimsOf(user, scopes),
    },
    options.users,
  );
}
