// Rules kept, from Keycloak's documentation ("Securing applications: OpenID Connect", "Server administration:
// realms"): each realm is an OpenID Connect provider whose issuer is `{server}/realms/{realm}` (Keycloak 16 and older
// serve under `/auth`, so their server URL ends with it), with discovery at the issuer and PKCE S256 accepted; `sub` is
// the user's id (a UUID) within the realm, while `preferred_username` can be changed by an administrator.
import type { UpstreamOptions } from '../../proxy.options.js';
import { DiscoveredIssuerProvider } from './discovered-issuer.provider.js';
import type { UpstreamProvider } from './upstream-provider.js';

/** A realm name as it appears in Keycloak's URLs. */
export const KEYCLOAK_REALM = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,255}$/;

/**
 * The issuer of `realm` on the Keycloak server at `baseUrl`.
 *
 * @see https://www.keycloak.org/securing-apps/oidc-layers#_oidc_available_endpoints
 */
export function keycloakIssuer(baseUrl: string, realm: string): string {
  return `${baseUrl}/realms/${encodeURIComponent(realm)}`;
}

/**
 * `UPSTREAM_PROVIDER=keycloak`: the realm `UPSTREAM_REALM` of the Keycloak server at `UPSTREAM_BASE_URL`.
 *
 * @see https://www.keycloak.org/securing-apps/oidc-layers
 */
export function keycloakProvider(upstream: UpstreamOptions): UpstreamProvider {
  return new DiscoveredIssuerProvider('keycloak', upstream);
}
