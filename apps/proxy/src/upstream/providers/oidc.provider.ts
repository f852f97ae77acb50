// Rules kept: RFC 8414 3 and OpenID Connect Discovery 4 (the metadata is discovered from the configured issuer, and
// its `issuer` must equal it); the MCP specification's "Authorization Code Protection" (no PKCE S256 advertised, no
// sign-in); OpenID Connect Core 5.7 (the subject is the ID token's `sub`, unique within its issuer) and 5.3.2 (a
// UserInfo `sub` that differs from the ID token's is refused, by openid-client).
import { Logger } from '@nestjs/common';
import { isLoopbackHost } from '@portcullis/protocol';
import * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../proxy.options.js';
import { UpstreamError } from '../upstream.error.js';
import { firstString, statedProfile, type StatedClaims } from '../upstream-profile.js';
import type { ProviderIdentity, UpstreamProvider, UpstreamTokenResponse } from './upstream-provider.js';

/**
 * `UPSTREAM_PROVIDER=oidc`, the default: any OpenID Connect provider or RFC 8414 authorization server, found by
 * discovery from `UPSTREAM_ISSUER`. With `openid` among the scopes the sign-in is OpenID Connect (a `nonce`, an ID
 * token whose `sub` names the person); without it, UserInfo's `sub` does.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfig
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#authorization-code-protection
 */
export class OidcProvider implements UpstreamProvider {
  readonly name = 'oidc';
  readonly openIdConnect: boolean;
  readonly #logger = new Logger('Upstream');

  constructor(private readonly upstream: UpstreamOptions) {
    this.openIdConnect = upstream.scopes.includes('openid');
  }

  async metadata(): Promise<oidc.ServerMetadata> {
    const { issuer, clientId, timeoutMs } = this.upstream;
    const url = new URL(issuer);
    const insecure = url.protocol === 'http:' && isLoopbackHost(url.hostname);
    const discovered = await oidc.discovery(url, clientId, undefined, oidc.None(), {
      // OpenID Connect Discovery for an OIDC sign-in, RFC 8414 metadata for plain OAuth.
      algorithm: this.openIdConnect ? 'oidc' : 'oauth2',
      timeout: timeoutMs / 1000,
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
    const metadata = discovered.serverMetadata();
    if (!metadata.code_challenge_methods_supported?.includes('S256')) {
      // Without S256 in code_challenge_methods_supported a client must not proceed (RFC 8414 2 names the member).
      throw new UpstreamError('rejected', 'the upstream does not support PKCE S256');
    }
    return metadata;
  }

  authorizationParameters(): Readonly<Record<string, string>> {
    return {};
  }

  async identity(config: oidc.Configuration, tokens: UpstreamTokenResponse): Promise<ProviderIdentity> {
    const claims = tokens.claims();
    const userinfo = await this.#userinfo(config, tokens.access_token, claims?.sub);
    const subject = claims?.sub ?? userinfo?.sub;
    if (!subject) throw new UpstreamError('rejected', 'the upstream did not say who signed in');
    // Two statements about the person, UserInfo's first (the fresher): each claim is read from one of them.
    const statements = [userinfo, claims].filter((each) => each !== undefined) as StatedClaims[];
    return {
      issuer: config.serverMetadata().issuer,
      subject,
      displayName: firstString(statements, ['preferred_username', 'email', 'name']) ?? subject,
      profile: statedProfile(statements),
    };
  }

  /**
   * UserInfo with the upstream access token, presented to the upstream that issued it and nowhere else. Required
   * without an ID token (plain OAuth: the only way to learn the subject); for OpenID Connect only a name to show,
   * so its failure there costs nothing.
   */
  async #userinfo(
    config: oidc.Configuration,
    accessToken: string,
    subject: string | undefined,
  ): Promise<oidc.UserInfoResponse | undefined> {
    if (!config.serverMetadata().userinfo_endpoint) return undefined;
    try {
      return await oidc.fetchUserInfo(config, accessToken, subject ?? oidc.skipSubjectCheck);
    } catch (error) {
      if (!subject) throw error;
      this.#logger.warn({ err: error }, 'upstream UserInfo failed; signing in with the ID token alone');
      return undefined;
    }
  }
}
