// Rules kept: RFC 6749 6 (refresh request; `scope` may narrow, never widen: `invalid_scope`), MCP "Token Theft"
// and RFC 9700 4.14.2 (rotation on every use; a consumed refresh token presented again revokes the whole
// family), RFC 8707 2.2 (`resource` must be the granted one), OAuth 2.1 4.3.1 (bound to the client it was issued
// to). Idle and absolute lifetimes end a family; without `offline_access` it also ends with the login session it
// came from. RFC 9449 5: a refresh token bound to a public client's key is used only with a proof of that key
// (proof-binding.check.ts) and its successor keeps the binding; a public client's unbound one presented with a
// proof has a successor bound to the proof's key; the new access token is bound to the request's proof, whoever
// the client. Every check that can refuse runs before the refresh token is consumed, so a refused request leaves
// it usable and only a token actually used counts as reused: the token, its family and its login session are read
// in one statement, the tokens are minted, and one more statement consumes the token, only while it is still
// usable, together with storing its successor and the access token, or does nothing. With
// REFRESH_TOKEN_REUSE_GRACE, a used token presented again within the window by the same client for the same
// resource, scope and key, while its successor is unused, gets the first answer again (refresh-replay.ts); anything
// else is reuse.
import { Injectable, Logger } from '@nestjs/common';
import type { TokenRequestProof, TokenResponse } from '@portcullis/extensions';
import { OAuthError, parseScope } from '@portcullis/protocol';
import type { AuthorizationGrant, RefreshToken } from '@portcullis/persistence';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { SecurityEvents } from '../events/security-events.js';
import { AuthorizationMetrics } from '../metrics/authorization.metrics.js';
import { GrantRepository, type RefreshFamily } from '../tokens/grant.repository.js';
import { TokenIssuer } from '../tokens/token-issuer.service.js';
import { assertSameResource, refreshExpiry, sameResource } from './authorization-code.grant.js';
import { assertProofOfBoundKey, storedConfirmation } from './proof-binding.check.js';
import { openReplay, replayRequest, sealReplay } from './refresh-replay.js';
import type { TokenGrant } from './token-grant.js';

/** `grant_type=refresh_token`. */
@Injectable()
export class RefreshTokenGrant implements TokenGrant {
  readonly grantType = 'refresh_token';
  readonly #logger = new Logger('RefreshTokenGrant');

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
    const presented = params.get('refresh_token');
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');
    let requestedScopes: string[] | undefined;
    try {
      requestedScopes = params.has('scope') ? parseScope(params.get('scope')) : undefined;
    } catch {
      throw new OAuthError('invalid_scope', 'scope is malformed');
    }

    // Client binding is checked before consuming, so another client cannot burn a token it cannot use.
    const found = await this.grants.findRefreshFamily(presented);
    if (!found || found.grant.clientId !== client.clientId) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
    const { token: stored, grant: family } = found;
    // The key binding before the reuse check too: a thief without the key can neither use nor revoke the family.
    const bound = storedConfirmation(stored.confirmation);
    assertProofOfBoundKey(bound, proof, 'refresh token');

    // A family already ended (revoked, or past its absolute lifetime) refuses without counting as reuse.
    this.#assertUsable(family);
    if (stored.consumedAt)
      return this.#presentedAgain(stored, presented, family, requestedScopes, params, proof);
    if (stored.expiresAt.getTime() <= Date.now()) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
    if (!family.offlineAccess && !sessionAlive(found)) {
      throw new OAuthError('invalid_grant', 'the login session this refresh token belongs to has ended');
    }
    assertSameResource(params.resources, family.resource);
    const scopes = requestedScopes ?? stored.scopes;
    const widened = scopes.filter((scope: string) => !stored.scopes.includes(scope));
    if (widened.length > 0) {
      throw new OAuthError('invalid_scope', `scope exceeds the original grant: ${widened.join(' ')}`);
    }

    // Minted before anything is consumed, so a refusal here (an extension's claims) leaves the token usable; the
    // grant's user, authorization request and attachments, as its authorization code's tokens had them.
    const successorConfirmation = bound ?? (method === 'none' ? proof?.confirmation : undefined);
    const minted = await this.issuer.mint({
      grantType: this.grantType,
      client: { clientId: client.clientId, metadata: client.metadata },
      subject: family.userId,
      resource: family.resource,
      scopes,
      grant: family,
      // The family keeps its original scope, so a narrowed refresh does not shrink later ones (RFC 6749 6).
      refreshToken: {
        scopes: stored.scopes,
        expiresAt: refreshExpiry(family.absoluteExpiresAt, this.issuer.lifetimes().refreshTokenIdle),
        ...(successorConfirmation ? { confirmation: successorConfirmation } : {}),
      },
      ...(scopes.includes('openid') ? { idToken: { authTime: family.authTime } } : {}),
      ...(proof ? { proof } : {}),
    });
    if (!minted.refreshToken) throw new Error('a refresh must issue a successor refresh token');
    // The token is used up together with storing its successor and the access token, in one statement, or not at
    // all; a revocation that committed before it is seen by it (not consumed: invalid_grant).
    const outcome = await this.grants.rotateRefreshToken(stored, {
      successor: minted.refreshToken,
      accessToken: minted.accessToken,
      ...(this.#graceMs() > 0
        ? { replay: sealReplay(presented, replayRequest(scopes, proof), minted.response) }
        : {}),
    });
    if (outcome.outcome === 'reused') {
      // Lost a race with another presentation, which has committed: the same as arriving after it.
      return this.#presentedAgain(outcome.token, presented, family, requestedScopes, params, proof);
    }
    if (outcome.outcome !== 'rotated') throw new OAuthError('invalid_grant', 'refresh token is invalid');
    this.issuer.issued(this.grantType);
    return minted.response;
  }

  /**
   * A refresh token presented after it was used: reuse, which revokes the family (RFC 9700 4.14.2); except, within
   * the operator's grace window, the same client asking for the same resource, scope and proof key while the
   * successor is still unused gets the very response the first presentation got.
   */
  async #presentedAgain(
    used: RefreshToken,
    presented: string,
    family: AuthorizationGrant,
    requestedScopes: string[] | undefined,
    params: RequestParameters,
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse> {
    const graceMs = this.#graceMs();
    if (
      graceMs > 0 &&
      used.replay !== null &&
      used.successorHash !== null &&
      used.consumedAt !== null &&
      Date.now() - used.consumedAt.getTime() <= graceMs &&
      sameResource(params.resources, family.resource)
    ) {
      const successor = await this.grants.findRefreshTokenByHash(used.successorHash);
      const scopes = requestedScopes ?? used.scopes;
      const response =
        successor && successor.consumedAt === null
          ? openReplay(presented, replayRequest(scopes, proof), used.replay)
          : undefined;
      if (response) {
        this.#logger.log(`refresh token presented again within the reuse grace window: grant ${family.id}`);
        return response;
      }
    }
    return this.#reused(family);
  }

  #graceMs(): number {
    return this.issuer.lifetimes().refreshTokenReuseGrace * 1000;
  }

  /** A revoked or past-its-absolute-lifetime family issues nothing. */
  #assertUsable(grant: AuthorizationGrant): void {
    if (grant.revokedAt || grant.absoluteExpiresAt.getTime() <= Date.now()) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
  }

  async #reused(family: AuthorizationGrant): Promise<never> {
    this.#logger.warn(`refresh token reused: revoking grant ${family.id}`);
    this.metrics.refreshTokenReused();
    await this.grants.revokeGrant(family.id);
    await this.events.record('refresh_token.reused', {
      clientId: family.clientId,
      userId: family.userId,
      detail: { grant: family.id, revoked: true },
    });
    throw new OAuthError('invalid_grant', 'refresh token is invalid');
  }
}

/** Whether the login session the family came from is still on (a family without `offline_access` ends with it). */
function sessionAlive({ session }: RefreshFamily): boolean {
  return session !== null && session.revokedAt === null && session.expiresAt.getTime() > Date.now();
}
