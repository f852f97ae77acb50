// Rules kept, from Auth0's documentation ("Authentication API", "Get Access Tokens", "Refresh Tokens"): a tenant's
// issuer is its domain with a trailing slash, `https://{tenant}.{region}.auth0.com/` (or the custom domain's), in the
// discovery document and in every ID token's `iss`, and is compared as that exact string; an access token for an API
// comes only when the authorization request names the API's identifier in `audience` (without it, the access token
// is only good for Auth0's /userinfo); a refresh token only with `offline_access`; `sub` is `{connection}|{id}`.
import type { UpstreamOptions } from '../../proxy.options.js';
import { DiscoveredIssuerProvider } from './discovered-issuer.provider.js';
import type { UpstreamProvider } from './upstream-provider.js';

/**
 * The issuer of the Auth0 tenant at `baseUrl`: the base URL and a `/`.
 *
 * @see https://auth0.com/docs/secure/tokens/id-tokens/id-token-structure
 */
export function auth0Issuer(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/`;
}

/**
 * `UPSTREAM_PROVIDER=auth0`: the Auth0 tenant at `UPSTREAM_BASE_URL` (`https://acme.us.auth0.com`, or its custom
 * domain), with `UPSTREAM_AUDIENCE` sent as `audience` when set.
 *
 * @see https://auth0.com/docs/api/authentication#authorization-code-flow-with-pkce
 */
export function auth0Provider(upstream: UpstreamOptions, audience: string | undefined): UpstreamProvider {
  return new DiscoveredIssuerProvider('auth0', upstream, audience === undefined ? {} : { audience });
}
