// Rules kept, from Okta's documentation ("Authorization servers", "OpenID Connect & OAuth 2.0 API"): an Okta org has
// an org authorization server, whose issuer is the org URL itself and whose endpoints are under `{org}/oauth2/v1/`,
// and custom authorization servers (one named `default` in every org), whose issuer is `{org}/oauth2/{id}`; each
// publishes OpenID Connect discovery at its issuer and accepts PKCE S256; a refresh token comes only with the
// `offline_access` scope (and the application's Refresh Token grant); the ID token's `sub` is the Okta user id, which
// does not change when the person's username or address does.
import type { UpstreamOptions } from '../../proxy.options.js';
import { DiscoveredIssuerProvider } from './discovered-issuer.provider.js';
import type { UpstreamProvider } from './upstream-provider.js';

/** `UPSTREAM_AUTHORIZATION_SERVER` naming the org authorization server rather than a custom one. */
export const OKTA_ORG_AUTHORIZATION_SERVER = 'org';

/** An Okta authorization server id: `default`, or an id like `aus1a2b3c4d5e6f7g8h9`. */
export const OKTA_AUTHORIZATION_SERVER = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The issuer of the chosen authorization server of the Okta org at `baseUrl`: `{org}/oauth2/{id}`, or the org URL for
 * the org authorization server.
 *
 * @see https://developer.okta.com/docs/concepts/auth-servers/
 */
export function oktaIssuer(baseUrl: string, authorizationServer: string): string {
  return authorizationServer === OKTA_ORG_AUTHORIZATION_SERVER
    ? baseUrl
    : `${baseUrl}/oauth2/${authorizationServer}`;
}

/**
 * `UPSTREAM_PROVIDER=okta`: an Okta org (`UPSTREAM_BASE_URL`, e.g. `https://acme.okta.com`) through the authorization
 * server `UPSTREAM_AUTHORIZATION_SERVER` (default `default`; `org` for the org authorization server).
 *
 * @see https://developer.okta.com/docs/reference/api/oidc/
 */
export function oktaProvider(upstream: UpstreamOptions): UpstreamProvider {
  return new DiscoveredIssuerProvider('okta', upstream);
}
