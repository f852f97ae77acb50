// Microsoft Entra ID's v2.0 endpoints for tests, on loopback, written from the Microsoft identity platform's public
// documentation ("OpenID Connect on the Microsoft identity platform", "ID token claims reference", "OAuth 2.0
// authorization code flow") with the quirks a client of Entra meets:
// - every endpoint is per tenant, `{base}/{tenant}/...`, the tenant a GUID, `common`, `organizations` or
//   `consumers`; an unknown tenant's discovery answers 400;
// - the discovery document of `common` and `organizations` names the issuer template `{base}/{tenantid}/v2.0`,
//   while each ID token's `iss` is `{base}/{tid}/v2.0` with the person's own tenant (`consumers`: the consumer
//   tenant `9188040d-6c67-4c5b-b112-36a304b66dad`); the document lists no `code_challenge_methods_supported`
//   though PKCE S256 is accepted, and a UserInfo endpoint on Microsoft Graph, not here;
// - a `resource` parameter is refused (AADSTS901002), at the authorization and the token endpoint;
// - a refresh token only with the `offline_access` scope; `oid` only with `profile`; `sub` pairwise (different for
//   each application); `email` only with `email`, never with an `email_verified`;
// - a person signs in only at their own tenant, `common`, or `organizations` (`consumers`: consumer accounts only).
import { createHash } from 'node:crypto';
import { startOidcFake, type OidcFake, type OidcFakeError } from './oidc-fake.js';

/** A work or school account (or, in the consumer tenant, a personal Microsoft account). */
export interface EntraFakeUser {
  /** The user principal name typed on the sign-in page (`preferred_username`). */
  readonly login: string;
  readonly password?: string;
  /** The object ID, stable across the tenant's applications. */
  readonly oid: string;
  /** The tenant ID. */
  readonly tid: string;
  readonly name?: string;
  readonly email?: string;
}

export type EntraFake = OidcFake;

export const ENTRA_CONSUMERS_TENANT_ID = '9188040d-6c67-4c5b-b112-36a304b66dad';
const GUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ROUTE = new RegExp(
  `^/(${GUID}|common|organizations|consumers)/(v2\\.0/\\.well-known/openid-configuration|oauth2/v2\\.0/authorize|oauth2/v2\\.0/token|discovery/v2\\.0/keys)$`,
);
const ENDPOINTS = {
  'v2.0/.well-known/openid-configuration': 'discovery',
  'oauth2/v2.0/authorize': 'authorize',
  'oauth2/v2.0/token': 'token',
  'discovery/v2.0/keys': 'jwks',
} as const;

const NO_RESOURCE: OidcFakeError = {
  error: 'invalid_request',
  error_description: "AADSTS901002: The 'resource' request parameter is not supported.",
};

export async function startEntraFake(options: { users: readonly EntraFakeUser[] }): Promise<EntraFake> {
  const tenants = new Set([ENTRA_CONSUMERS_TENANT_ID, ...options.users.map((user) => user.tid)]);
  return startOidcFake<EntraFakeUser>(
    {
      route: (pathname) => {
        const [, realm, path] = ROUTE.exec(pathname) ?? [];
        if (!realm || !path) return undefined;
        return { realm, endpoint: ENDPOINTS[path as keyof typeof ENDPOINTS] };
      },
      discovery: (baseUrl, realm) => {
        if (/^[0-9a-f-]{36}$/.test(realm) && !tenants.has(realm)) return undefined;
        const issuerTenant =
          realm === 'common' || realm === 'organizations'
            ? '{tenantid}'
            : realm === 'consumers'
              ? ENTRA_CONSUMERS_TENANT_ID
              : realm;
        return {
          issuer: `${baseUrl}/${issuerTenant}/v2.0`,
          authorization_endpoint: `${baseUrl}/${realm}/oauth2/v2.0/authorize`,
          token_endpoint: `${baseUrl}/${realm}/oauth2/v2.0/token`,
          jwks_uri: `${baseUrl}/${realm}/discovery/v2.0/keys`,
          userinfo_endpoint: 'https://graph.microsoft.com/oidc/userinfo',
          end_session_endpoint: `${baseUrl}/${realm}/oauth2/v2.0/logout`,
          token_endpoint_auth_methods_supported: [
            'client_secret_post',
            'private_key_jwt',
            'client_secret_basic',
          ],
          response_modes_supported: ['query', 'fragment', 'form_post'],
          response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
          scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
          subject_types_supported: ['pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
          claims_supported: [
            'sub',
            'iss',
            'aud',
            'exp',
            'iat',
            'nonce',
            'name',
            'oid',
            'tid',
            'preferred_username',
            'email',
          ],
          tenant_region_scope: null,
        };
      },
      admitsUser: (realm, user) =>
        realm === 'common' ||
        (realm === 'organizations' && user.tid !== ENTRA_CONSUMERS_TENANT_ID) ||
        (realm === 'consumers' && user.tid === ENTRA_CONSUMERS_TENANT_ID) ||
        realm === user.tid,
      refuseAuthorization: (params) => (params.has('resource') ? NO_RESOURCE : undefined),
      refuseToken: (form) => (form.has('resource') ? NO_RESOURCE : undefined),
      issuesRefreshToken: ({ scopes }) => scopes.includes('offline_access'),
      idTokenClaims: (baseUrl, { user, scopes, clientId }) => ({
        iss: `${baseUrl}/${user.tid}/v2.0`,
        // Pairwise: the same person has another `sub` at another application.
        sub: createHash('sha256').update(`${clientId}:${user.oid}`).digest('base64url'),
        tid: user.tid,
        ver: '2.0',
        ...(scopes.includes('profile')
          ? { oid: user.oid, preferred_username: user.login, ...(user.name ? { name: user.name } : {}) }
          : {}),
        ...(scopes.includes('email') && user.email ? { email: user.email } : {}),
      }),
    },
    options.users,
  );
}
