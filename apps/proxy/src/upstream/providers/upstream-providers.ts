import type { UpstreamOptions } from '../../proxy.options.js';
import { EntraProvider } from './entra.provider.js';
import { GithubProvider } from './github.provider.js';
import { GoogleProvider } from './google.provider.js';
import { OAuth2Provider } from './oauth2.provider.js';
import { OidcProvider } from './oidc.provider.js';
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
    case 'oauth2':
      return new OAuth2Provider(upstream, provider);
  }
}
