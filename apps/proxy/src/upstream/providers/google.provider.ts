// Rules kept, from Google's documentation ("OpenID Connect", "Using OAuth 2.0 for Web Server Applications"): Google
// is an OpenID Connect provider found by discovery from `https://accounts.google.com`, so the sign-in is the `oidc`
// preset's (ID token with `nonce`, `sub` the person, checked by openid-client); a refresh token is issued only to an
// authorization request with `access_type=offline`, and again after the first consent only with `prompt=consent`,
// so both are always sent; the Google Workspace domain is the ID token's `hd` claim, which Google sets only for an
// account of that Workspace, never the domain of the address (a consumer account can have an address anywhere).
import type * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../proxy.options.js';
import { OidcProvider } from './oidc.provider.js';
import type { ProviderIdentity, UpstreamProvider, UpstreamTokenResponse } from './upstream-provider.js';

/** Google's issuer, where its discovery document is. */
export const GOOGLE_BASE_URL = 'https://accounts.google.com';

/** A domain name as `hd` states it. */
const DOMAIN = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/**
 * `UPSTREAM_PROVIDER=google`: Google accounts and Google Workspace, through OpenID Connect discovery from
 * `UPSTREAM_BASE_URL` (default `https://accounts.google.com`).
 *
 * @see https://developers.google.com/identity/openid-connect/openid-connect
 * @see https://developers.google.com/identity/protocols/oauth2/web-server#offline
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
 */
export class GoogleProvider implements UpstreamProvider {
  readonly name = 'google';
  readonly openIdConnect = true;
  /** Google's `prompt` knows only `none`, `consent` and `select_account`, and refuses the request for `login`. */
  readonly signInAgainPrompt = 'select_account';
  readonly #oidc: OidcProvider;

  /** `upstream.issuer` is the base URL (the configuration sets it so). */
  constructor(upstream: UpstreamOptions) {
    this.#oidc = new OidcProvider(upstream);
  }

  metadata(): Promise<oidc.ServerMetadata> {
    return this.#oidc.metadata();
  }

  /**
   * `access_type=offline` for a refresh token, and `prompt=consent` so that Google issues one on every sign-in, not
   * only the first; a `prompt` of the flow (`login`) is sent beside it.
   */
  authorizationParameters(): Readonly<Record<string, string>> {
    return { access_type: 'offline', prompt: 'consent' };
  }

  async identity(config: oidc.Configuration, tokens: UpstreamTokenResponse): Promise<ProviderIdentity> {
    const identity = await this.#oidc.identity(config, tokens);
    const hd = tokens.claims()?.['hd'];
    return {
      ...identity,
      ...(typeof hd === 'string' && DOMAIN.test(hd) ? { hostedDomain: hd.toLowerCase() } : {}),
    };
  }
}
