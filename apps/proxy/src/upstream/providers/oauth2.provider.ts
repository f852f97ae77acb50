// Rules kept: RFC 6749 3.1 and 3.2 (the endpoints are configured, since the server publishes no metadata), RFC 7636
// (PKCE S256 is always sent), RFC 6750 2.1 (the access token goes to the configured UserInfo endpoint only); the
// person is the configured member of that endpoint's JSON answer, a stable identifier, never an address or a name.
import type * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../proxy.options.js';
import { UpstreamError } from '../upstream.error.js';
import { firstString, statedProfile } from '../upstream-profile.js';
import { asObject, getJson, identifierOf } from './provider-api.js';
import type { ProviderIdentity, UpstreamProvider, UpstreamTokenResponse } from './upstream-provider.js';

/** What `UPSTREAM_PROVIDER=oauth2` reads from the environment. */
export interface OAuth2Settings {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly userinfoEndpoint: string;
  readonly subjectClaim: string;
  readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
}

/**
 * `UPSTREAM_PROVIDER=oauth2`: an OAuth 2.0 authorization server without discovery, and a JSON API that says who
 * the token belongs to (`UPSTREAM_USERINFO_ENDPOINT`), its `UPSTREAM_SUBJECT_CLAIM` member (default `sub`; `id` for
 * most REST user APIs) being the person. `UPSTREAM_ISSUER`, when the server has an issuer identifier, is checked
 * against an RFC 9207 `iss` in its responses; the users are keyed within it (default: the authorization endpoint's
 * origin).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3
 */
export class OAuth2Provider implements UpstreamProvider {
  readonly name = 'oauth2';
  readonly openIdConnect = false;

  constructor(
    private readonly upstream: UpstreamOptions,
    private readonly settings: OAuth2Settings,
  ) {}

  async metadata(): Promise<oidc.ServerMetadata> {
    return {
      issuer: this.upstream.issuer,
      authorization_endpoint: this.settings.authorizationEndpoint,
      token_endpoint: this.settings.tokenEndpoint,
      userinfo_endpoint: this.settings.userinfoEndpoint,
      token_endpoint_auth_methods_supported: [this.settings.tokenEndpointAuthMethod],
      code_challenge_methods_supported: ['S256'],
    };
  }

  authorizationParameters(): Readonly<Record<string, string>> {
    return {};
  }

  async identity(config: oidc.Configuration, tokens: UpstreamTokenResponse): Promise<ProviderIdentity> {
    const { subjectClaim, userinfoEndpoint } = this.settings;
    const answer = await getJson(config, tokens.access_token, new URL(userinfoEndpoint));
    const body = asObject(answer.body);
    const subject = identifierOf(body?.[subjectClaim]);
    if (answer.status !== 200 || !body || !subject) {
      throw new UpstreamError(
        'rejected',
        `the UserInfo endpoint answered ${answer.status} without the person's ${subjectClaim}`,
      );
    }
    const statements = [body];
    return {
      issuer: this.upstream.issuer,
      subject,
      displayName: firstString(statements, ['preferred_username', 'login', 'email', 'name']) ?? subject,
      ...(typeof body['login'] === 'string' && body['login'] ? { login: body['login'] } : {}),
      profile: statedProfile(statements),
    };
  }
}
