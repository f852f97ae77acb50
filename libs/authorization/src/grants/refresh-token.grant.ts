// Rules kept: RFC 6749 6 (refresh request; `scope` may narrow, never widen: `invalid_scope`), MCP "Token Theft"
// and RFC 9700 4.14.2 (rotation on every use; a consumed refresh token presented again revokes the whole
// family), RFC 8707 2.2 (`resource` must be the granted one), OAuth 2.1 4.3.1 (bound to the client it was issued
// to). Idle and absolute lifetimes end a family; without `offline_access` it also ends with the login session it
// came from. RFC 9449 5: a refresh token bound to a public client's key is used only with a proof of that key
// (proof-binding.check.ts) and its successor keeps the binding; a public client's unbound one presented with a
// proof has a successor bound to the proof's key; the new access token is bound to the request's proof, whoever
// the client. Every check that can refuse runs before the refresh token is consumed, so a refused request leaves
// it usable and only a token actually used counts as reused.
import { Injectable, Logger } from '@nestjs/common';
import type { TokenRequestProof, TokenResponse } from '@portcullis/extensions';
import { OAuthError, parseScope } from '@portcullis/protocol';
import type { AuthorizationGrant } from '@portcullis/persistence';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { GrantRepository } from '../tokens/grant.repository.js';
import { SessionRepository } from '../sessions/session.repository.js';
import { TokenIssuer } from '../tokens/token-issuer.service.js';
import { assertSameResource, refreshExpiry } from './authorization-code.grant.js';
import { assertProofOfBoundKey, storedConfirmation } from './proof-binding.check.js';
import type { TokenGrant } from './token-grant.js';

/** `grant_type=refresh_token`. */
@Injectable()
export class RefreshTokenGrant implements TokenGrant {
  readonly grantType = 'refresh_token';
  readonly #logger = new Logger('RefreshTokenGrant');

  constructor(
    private readonly grants: GrantRepository,
    private readonly sessions: SessionRepository,
    private readonly issuer: TokenIssuer,
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
    const stored = await this.grants.findRefreshToken(presented);
    if (!stored) throw new OAuthError('invalid_grant', 'refresh token is invalid');
    const family = await this.grants.findGrant(stored.grantId);
    if (!family || family.clientId !== client.clientId) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
    // The key binding before the reuse check too: a thief without the key can neither use nor revoke the family.
    const bound = storedConfirmation(stored.confirmation);
    assertProofOfBoundKey(bound, proof, 'refresh token');

    // A family already ended (revoked, or past its absolute lifetime) refuses without counting as reuse.
    this.#assertUsable(family);
    if (stored.consumedAt) return this.#reused(stored.grantId);
    if (stored.expiresAt.getTime() <= Date.now()) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
    if (!family.offlineAccess && !(await this.#sessionAlive(family.sessionId))) {
      throw new OAuthError('invalid_grant', 'the login session this refresh token belongs to has ended');
    }
    assertSameResource(params.resources, family.resource);
    const scopes = requestedScopes ?? stored.scopes;
    const widened = scopes.filter((scope: string) => !stored.scopes.includes(scope));
    if (widened.length > 0) {
      throw new OAuthError('invalid_scope', `scope exceeds the original grant: ${widened.join(' ')}`);
    }

    const consumption = await this.grants.consumeRefreshToken(stored);
    if (consumption.outcome === 'reused') return this.#reused(consumption.grantId);
    if (consumption.outcome !== 'consumed') throw new OAuthError('invalid_grant', 'refresh token is invalid');
    // Read after the consumption, so a revocation that raced it is seen.
    const { token, grant } = consumption;
    this.#assertUsable(grant);

    const successorConfirmation = bound ?? (method === 'none' ? proof?.confirmation : undefined);
    return this.issuer.issue({
      grantType: this.grantType,
      clientId: client.clientId,
      subject: grant.userId,
      resource: grant.resource,
      scopes,
      grantId: grant.id,
      // The family keeps its original scope, so a narrowed refresh does not shrink later ones (RFC 6749 6).
      refreshToken: {
        scopes: token.scopes,
        expiresAt: refreshExpiry(grant.absoluteExpiresAt, this.issuer.lifetimes().refreshTokenIdle),
        ...(successorConfirmation ? { confirmation: successorConfirmation } : {}),
      },
      ...(scopes.includes('openid') ? { idToken: { authTime: grant.authTime } } : {}),
      ...(proof ? { proof } : {}),
    });
  }

  /** A revoked or past-its-absolute-lifetime family issues nothing. */
  #assertUsable(grant: AuthorizationGrant): void {
    if (grant.revokedAt || grant.absoluteExpiresAt.getTime() <= Date.now()) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
  }

  async #reused(grantId: string): Promise<never> {
    this.#logger.warn(`refresh token reused: revoking grant ${grantId}`);
    await this.grants.revokeGrant(grantId);
    throw new OAuthError('invalid_grant', 'refresh token is invalid');
  }

  async #sessionAlive(sessionId: string | null): Promise<boolean> {
    if (!sessionId) return false;
    const session = await this.sessions.find(sessionId);
    return session !== null && session.revokedAt === null && session.expiresAt.getTime() > Date.now();
  }
}
