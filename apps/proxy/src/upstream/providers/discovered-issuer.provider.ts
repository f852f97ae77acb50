// Rules kept: RFC 8414 3.3 and OpenID Connect Discovery 4.3 (the `issuer` of the discovered metadata is identical to
// the issuer the configuration names, compared as strings: `https://tenant.auth0.com/` is not
// `https://tenant.auth0.com`, though a URL parser reads both as one). The sign-in itself is the `oidc` preset's.
import type * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../proxy.options.js';
import { UpstreamError } from '../upstream.error.js';
import { OidcProvider } from './oidc.provider.js';
import type { ProviderIdentity, UpstreamProvider, UpstreamTokenResponse } from './upstream-provider.js';

/**
 * An OpenID Connect provider whose issuer a preset derives from its settings (Okta's authorization server, Auth0's
 * tenant, Keycloak's realm): discovery from that issuer, the ID token's `sub` the person, and the preset's own
 * authorization parameters.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.3
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationValidation
 */
export class DiscoveredIssuerProvider implements UpstreamProvider {
  readonly openIdConnect = true;
  readonly #oidc: OidcProvider;

  /** `upstream.issuer` is the issuer the preset derived (the configuration sets it so). */
  constructor(
    readonly name: 'okta' | 'auth0' | 'keycloak',
    private readonly upstream: UpstreamOptions,
    private readonly parameters: Readonly<Record<string, string>> = {},
  ) {
    this.#oidc = new OidcProvider(upstream);
  }

  async metadata(): Promise<oidc.ServerMetadata> {
    const metadata = await this.#oidc.metadata();
    if (metadata.issuer !== this.upstream.issuer) {
      throw new UpstreamError(
        'rejected',
        `the upstream's metadata names the issuer ${metadata.issuer}, not ${this.upstream.issuer}`,
      );
    }
    return metadata;
  }

  authorizationParameters(): Readonly<Record<string, string>> {
    return this.parameters;
  }

  identity(config: oidc.Configuration, tokens: UpstreamTokenResponse): Promise<ProviderIdentity> {
    return this.#oidc.identity(config, tokens);
  }
}
