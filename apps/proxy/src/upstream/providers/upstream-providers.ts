import type { UpstreamOptions } from '../../proxy.options.js';
import { auth0Provider } from './auth0.provider.js';
import { EntraProvider } from './entra.provider.js';
import { GithubProvider } from './github.provider.js';
import { GoogleProvider } from './google.provider.js';
import { keycloakProvider } from './keycloak.provider.js';
import { OAuth2Provider } from './oauth2.provider.js';
import { OidcProvider } from './oidc.provider.js';
import { oktaProvider } from './okta.provider.js';
import type { UpstreamProvider } from './upstream-provider.js';

/** The provider `UPSTREAM_PROVIDER` chose, built with what it read from the environment. */
export function createUpstreamProvider(upstream: UpstreamOptions): UpstreamProvider {
  const provider = upstream.provider;
  switch (provider.name) {
    case 'oidc':
      return new OidcProvider(upstream);
    case 'github':
      return new GithubProvider(provider);
    case 'google':
      return new GoogleProvider(upstream);
    case 'entra':
      return new EntraProvider(upstream, provider);
    case 'okta':
      return oktaProvider(upstream);
    case 'auth0':
      return auth0Provider(upstream, provider.audience);
    case 'keycloak':
      return keycloakProvider(upstream);
    case 'oauth2':
      return new OAuth2Provider(upstream, provider);
  }
}
