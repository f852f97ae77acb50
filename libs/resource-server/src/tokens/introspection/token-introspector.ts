/**
 * Opaque access tokens, asked about at the authorization server (RFC 7662).
 *
 * Rules kept here:
 * - RFC 7662 Section 2.1: a POST of `token` (with `token_type_hint=access_token`), authenticated with the resource
 *   server's own client credentials (`client_secret_basic`, RFC 6749 Section 2.3.1), never with the token itself.
 * - RFC 7662 Section 2.2: `active: false`, or anything but `true`, is an invalid token; no other member is read
 *   from an inactive response.
 * - RFC 7662 Section 4: an active token is still checked here: `token_type`, when present, is a bearer access
 *   token, or (RFC 9449 Section 6.2) a token of the composed proof-of-possession scheme (`DPoP`), which must then
 *   carry its `cnf`; `cnf`, when present, is an object (RFC 7800 Section 3.1) and becomes the token's
 *   confirmation; `iss`, when present, is the introspecting issuer; `aud` contains this resource (RFC 8707 Section 2; a
 *   response without `aud` is not verifiably meant for this resource); `exp` is present and not passed; `sub`
 *   and `client_id` are present.
 * - An introspection endpoint that refuses the resource server's credentials, or fails, is an outage (503), not
 *   a verdict on the token.
 */
import { parseScope } from '@portcullis/protocol';
import { z } from 'zod';
import type { AuthInfo } from '../../auth/auth-info.js';
import type { ResourceServerConfig } from '../../config/resource-server.config.js';
import { audiencesOf, checkAudience } from '../checks/audience.check.js';
import { checkConfirmation, confirmationOf } from '../checks/confirmation.check.js';
import { checkLifetime } from '../checks/lifetime.check.js';
import { checkSubjectAndClient } from '../checks/subject-and-client.check.js';
import { invalidToken, type TokenCheck, type TokenCheckContext } from '../checks/token-check.js';
import { AuthorizationServerDirectory } from '../discovery/authorization-server-directory.js';
import { clientSecretBasic, fetchJson, UpstreamFetchError } from '../discovery/fetch-json.js';

const IntrospectionResponseSchema = z.looseObject({ active: z.boolean() });

const ACTIVE_TOKEN_CHECKS: readonly TokenCheck[] = [
  checkAudience,
  checkLifetime,
  checkSubjectAndClient,
  checkConfirmation,
];

/**
 * Validates opaque access tokens with RFC 7662 introspection.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7662 RFC 7662}
 */
export class TokenIntrospector {
  constructor(
    private readonly config: ResourceServerConfig,
    private readonly directory: AuthorizationServerDirectory,
  ) {}

  /** Whether opaque tokens can be validated at all (introspection credentials are configured). */
  get enabled(): boolean {
    return this.config.tokens.introspection !== undefined;
  }

  /**
   * Asks the authorization server about `token` and describes it when it is active and meant for this resource.
   *
   * @throws OAuthError `invalid_token`; `UpstreamFetchError` when introspection itself fails.
   * @see {@link https://www.rfc-editor.org/rfc/rfc7662#section-2 RFC 7662 Section 2}
   */
  async introspect(token: string): Promise<AuthInfo> {
    const settings = this.config.tokens.introspection;
    if (!settings) throw invalidToken('The access token is not a JWT access token.');
    const endpoint =
      settings.endpoint ?? (await this.directory.lookup(settings.issuer)).introspectionEndpoint;
    if (!endpoint) throw new UpstreamFetchError(`${settings.issuer} publishes no introspection_endpoint`);

    const result = await fetchJson(endpoint, {
      timeoutMs: this.config.tokens.discovery.timeoutMs,
      headers: { authorization: clientSecretBasic(settings.clientId, settings.clientSecret) },
      form: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    if (!('body' in result)) throw new UpstreamFetchError(`introspection answered ${result.status}`);
    const parsed = IntrospectionResponseSchema.safeParse(result.body);
    if (!parsed.success)
      throw new UpstreamFetchError('introspection did not answer with an RFC 7662 response');
    const response = parsed.data as Record<string, unknown> & { active: boolean };
    if (response.active !== true) throw invalidToken('The access token is not active.');

    const { token_type: tokenType, iss } = response;
    const proofScheme = this.config.extensions.resourceServerProofOfPossession()?.scheme.toLowerCase();
    const type = typeof tokenType === 'string' ? tokenType.toLowerCase() : tokenType;
    if (type !== undefined && type !== 'bearer' && (proofScheme === undefined || type !== proofScheme)) {
      throw invalidToken('The token is not a bearer access token.');
    }
    if (type !== undefined && type === proofScheme && response['cnf'] === undefined) {
      throw invalidToken('The access token is of a proof-of-possession type but names no key.');
    }
    if (iss !== undefined && iss !== settings.issuer) {
      throw invalidToken('The access token was not issued by the introspecting authorization server.');
    }
    const context: TokenCheckContext = {
      resource: this.config.resource,
      issuers: [settings.issuer],
      algorithms: [],
      clockSkewSeconds: this.config.tokens.clockSkewSeconds,
      now: Math.floor(Date.now() / 1000),
    };
    for (const check of ACTIVE_TOKEN_CHECKS) check(response, context);

    const scope = response['scope'];
    const confirmation = confirmationOf(response);
    return Object.freeze({
      subject: response['sub'] as string,
      clientId: response['client_id'] as string,
      scopes: Object.freeze(parseScope(typeof scope === 'string' ? scope : undefined)),
      audience: Object.freeze(audiencesOf(response) ?? []),
      issuer: settings.issuer,
      expiresAt: response['exp'] as number,
      ...(typeof response['jti'] === 'string' ? { tokenId: response['jti'] } : {}),
      ...(confirmation ? { confirmation } : {}),
      validatedBy: 'introspection' as const,
    });
  }
}
