// Rules kept: RFC 6749 4.1.3 (code and client bound to the code; `redirect_uri` required, and identical, when the
// authorization request included it, optional otherwise but then the one used), OAuth 2.1 4.1.3 and RFC 7636 4.6
// (code_verifier REQUIRED and checked against the S256 challenge), RFC 6749 4.1.2 and 10.5 (a code is single use;
// its second redemption fails with `invalid_grant` and revokes every token the first produced),
// RFC 8707 2.2 (a `resource` at the token endpoint must be the one granted), RFC 6749 5.2 (`invalid_grant` for
// every binding failure, saying no more than needed), RFC 9449 10 (a code bound with `dpop_jkt` needs a proof of
// that key: proof-binding.check.ts), RFC 9449 5 (a public client's refresh token is bound to the proof's key;
// the access token to the proof's key, whoever the client). Every check that can refuse runs before the code is
// consumed, so a refused request leaves it redeemable and only a code actually redeemed counts as replayed: the code
// and its grant are read in one statement, the tokens are minted (extensions' token claims included), and one more
// statement consumes the code, only while it is unused, unexpired and its grant not revoked, together with storing
// the tokens issued for it, or does nothing. A code redeemed already, presented again or by the loser of a race,
// revokes its grant and every token the grant issued (RFC 6749 4.1.2, RFC 9700 4.2.4); except, with
// AUTHORIZATION_CODE_REUSE_GRACE, the same client retrying the very redemption (redirect URI, code verifier, resource,
// key) within the window while the grant stands and its refresh token is unused gets the first response again, kept
// sealed with a key derived from the code and its verifier (refresh-replay.ts): a retry whose answer was lost, never
// new tokens. This knowingly relaxes OAuth 2.1 4.1.3's "MUST deny" for the one client holding the verifier, and only
// when the operator sets the window (default 0).
import { Injectable, Logger } from '@nestjs/common';
import type { TokenRequestProof, TokenResponse } from '@portcullis/extensions';
import {
  canonicalizeResourceUri,
  isCodeVerifier,
  OAuthError,
  verifyCodeChallenge,
} from '@portcullis/protocol';
import type { AuthorizationCode, AuthorizationGrant } from '@portcullis/persistence';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { SecurityEvents } from '../events/security-events.js';
import { AuthorizationMetrics } from '../metrics/authorization.metrics.js';
import { GrantRepository } from '../tokens/grant.repository.js';
import { TokenIssuer, type TokenRequest } from '../tokens/token-issuer.service.js';
import { assertProofOfBoundKey, storedConfirmation } from './proof-binding.check.js';
import { openReplay, replayRequest, sealReplay } from './refresh-replay.js';
import type { TokenGrant } from './token-grant.js';

/** `grant_type=authorization_code`. */
@Injectable()
export class AuthorizationCodeGrant implements TokenGrant {
  readonly grantType = 'authorization_code';
  readonly #logger = new Logger('AuthorizationCodeGrant');

  constructor(
    private readonly grants: GrantRepository,
    private readonly issuer: TokenIssuer,
    private readonly metrics: AuthorizationMetrics,
    private readonly events: SecurityEvents,
  ) {}

  async handle(
    params: RequestParameters,
    { client, method }: AuthenticatedOAuthClient,
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse> {
    const code = params.get('code');
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    const verifier = params.get('code_verifier');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    if (!isCodeVerifier(verifier)) throw new OAuthError('invalid_request', 'code_verifier is malformed');

    // Bindings first, without consuming: a request that could never redeem the code must not burn it.
    const found = await this.grants.findCodeGrant(code);
    if (!found) throw new OAuthError('invalid_grant', 'authorization code is invalid');
    const { code: stored, grant } = found;
    // The client binding first: another client presenting a used code must not revoke this client's grant.
    if (stored.clientId !== client.clientId) {
      throw new OAuthError('invalid_grant', 'authorization code is invalid');
    }
    // The key binding before the replay check too: a code thief without the key can neither use nor revoke it.
    assertProofOfBoundKey(storedConfirmation(stored.confirmation), proof, 'authorization code');
    if (stored.consumedAt) return this.#presentedAgain(stored, grant, code, verifier, params, client, proof);
    if (!sameRedirectUri(stored, params.get('redirect_uri'))) {
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    }
    if (!verifyCodeChallenge(verifier, stored.codeChallenge, 'S256')) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    if (!grant) throw new OAuthError('invalid_grant', 'authorization code is invalid');
    assertSameResource(params.resources, grant.resource);
    // Expired, or its grant revoked: refused without consuming anything (the redemption would not consume it either).
    if (stored.expiresAt.getTime() <= Date.now() || grant.revokedAt) {
      throw new OAuthError('invalid_grant', 'authorization code is invalid');
    }

    // Minted before anything is consumed, so a refusal here (an extension's claims) leaves the code redeemable.
    const minted = await this.issuer.mint(this.#tokenRequest(stored, grant, client, method, proof));
    // The code is used up together with storing what it is exchanged for, in one statement, or not at all; a
    // revocation that committed before it is seen by it (not consumed: invalid_grant).
    const outcome = await this.grants.redeemCode(stored, {
      accessToken: minted.accessToken,
      ...(minted.refreshToken ? { refreshToken: minted.refreshToken } : {}),
      ...(this.#graceMs() > 0
        ? {
            replay: sealReplay(
              replaySecret(code, verifier),
              replayRequest(grant.scopes, proof),
              minted.response,
              'authorization_code',
            ),
          }
        : {}),
    });
    // Lost a race with another redemption, which has committed: the same as arriving after it.
    if (outcome.outcome === 'replayed') {
      const now = this.#graceMs() > 0 ? await this.grants.findCodeGrant(code) : null;
      if (!now?.code.consumedAt) return this.#replayed(outcome.grantId, client.clientId, grant);
      return this.#presentedAgain(now.code, now.grant, code, verifier, params, client, proof);
    }
    if (outcome.outcome !== 'redeemed') {
      throw new OAuthError('invalid_grant', 'authorization code is invalid');
    }
    this.issuer.issued(this.grantType);
    return minted.response;
  }

  #tokenRequest(
    code: AuthorizationCode,
    grant: AuthorizationGrant,
    client: AuthenticatedOAuthClient['client'],
    method: AuthenticatedOAuthClient['method'],
    proof: TokenRequestProof | undefined,
  ): TokenRequest {
    const refreshable = client.grantTypes.includes('refresh_token');
    // RFC 9449 5: a public client's refresh token is bound to the proof's key; a confidential client's is bound to
    // the client by its authentication already.
    const refreshConfirmation = method === 'none' ? proof?.confirmation : undefined;
    return {
      grantType: this.grantType,
      client: { clientId: client.clientId, metadata: client.metadata },
      subject: grant.userId,
      resource: grant.resource,
      scopes: grant.scopes,
      grant,
      ...(refreshable
        ? {
            refreshToken: {
              scopes: grant.scopes,
              expiresAt: refreshExpiry(grant.absoluteExpiresAt, this.#idleSeconds()),
              ...(refreshConfirmation ? { confirmation: refreshConfirmation } : {}),
            },
          }
        : {}),
      ...(grant.scopes.includes('openid')
        ? {
            idToken: {
              authTime: grant.authTime,
              ...(code.nonce ? { nonce: code.nonce } : {}),
            },
          }
        : {}),
      ...(proof ? { proof } : {}),
    };
  }

  #idleSeconds(): number {
    return this.issuer.lifetimes().refreshTokenIdle;
  }

  #graceMs(): number {
    return this.issuer.lifetimes().authorizationCodeReuseGrace * 1000;
  }

  /**
   * A code presented after it was redeemed: a replay, which revokes its grant (RFC 6749 4.1.2); except, within the
   * operator's grace window (AUTHORIZATION_CODE_REUSE_GRACE), the same client retrying the very redemption (the same
   * redirect URI, code verifier, resource and proof key) while the grant stands and the refresh token it issued is
   * unused gets the response the first redemption got: a retry whose first answer was lost (its instance died after
   * the commit, and the balancer or the client sent it again). New tokens are never issued for it.
   */
  async #presentedAgain(
    used: AuthorizationCode,
    grant: AuthorizationGrant | null,
    code: string,
    verifier: string,
    params: RequestParameters,
    client: AuthenticatedOAuthClient['client'],
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse> {
    const graceMs = this.#graceMs();
    if (
      graceMs > 0 &&
      grant !== null &&
      grant.revokedAt === null &&
      used.replay !== null &&
      used.consumedAt !== null &&
      Date.now() - used.consumedAt.getTime() <= graceMs &&
      sameRedirectUri(used, params.get('redirect_uri')) &&
      verifyCodeChallenge(verifier, used.codeChallenge, 'S256') &&
      sameResource(params.resources, grant.resource)
    ) {
      const response = openReplay(
        replaySecret(code, verifier),
        replayRequest(grant.scopes, proof),
        used.replay,
        'authorization_code',
      );
      const refresh = response?.refresh_token
        ? await this.grants.findRefreshToken(response.refresh_token)
        : undefined;
      if (response && (!response.refresh_token || (refresh && refresh.consumedAt === null))) {
        this.#logger.log(
          `authorization code presented again within the reuse grace window: grant ${grant.id}`,
        );
        return response;
      }
    }
    return this.#replayed(used.grantId, client.clientId, grant);
  }

  /** A code used before: revokes its grant and every token of it, and records the security event. */
  async #replayed(grantId: string, clientId: string, grant: AuthorizationGrant | null): Promise<never> {
    this.#logger.warn(`authorization code replayed: revoking grant ${grantId}`);
    this.metrics.authorizationCodeReplayed();
    await this.grants.revokeGrant(grantId);
    await this.events.record('authorization_code.replayed', {
      clientId,
      ...(grant ? { userId: grant.userId } : {}),
      detail: { grant: grantId, revoked: true },
    });
    throw new OAuthError('invalid_grant', 'authorization code is invalid');
  }
}

/**
 * What a redemption's response is sealed with: the code and its verifier. The code alone travels through the browser
 * (history, logs, Referer); with the verifier, which only the client holds, a reader of the database who also saw the
 * code still cannot open it.
 */
function replaySecret(code: string, verifier: string): string {
  return `${code}\n${verifier}`;
}

/** RFC 6749 4.1.3: `redirect_uri` required, and identical, when the authorization request had it; else the one used. */
function sameRedirectUri(code: AuthorizationCode, redirectUri: string | undefined): boolean {
  return code.redirectUriSent
    ? redirectUri === code.redirectUri
    : redirectUri === undefined || redirectUri === code.redirectUri;
}

/**
 * RFC 8707 2.2: the token request's `resource`, when sent, must be the one the authorization was for.
 *
 * @throws OAuthError `invalid_target`
 */
export function assertSameResource(requested: readonly string[], granted: string): void {
  const [resource, ...more] = requested;
  if (resource === undefined) return;
  if (more.length > 0) throw new OAuthError('invalid_target', 'only one resource may be requested at a time');
  if (canonicalizeResourceUri(resource) !== granted) {
    throw new OAuthError('invalid_target', 'resource differs from the one authorized');
  }
}

/** Whether a token request's `resource`, when sent, names the granted one (`assertSameResource` without throwing). */
export function sameResource(requested: readonly string[], granted: string): boolean {
  try {
    assertSameResource(requested, granted);
    return true;
  } catch {
    return false;
  }
}

/** A refresh token lives `idleSeconds`, and never past the grant's absolute expiry. */
export function refreshExpiry(absoluteExpiresAt: Date, idleSeconds: number): Date {
  return new Date(Math.min(absoluteExpiresAt.getTime(), Date.now() + idleSeconds * 1000));
}
