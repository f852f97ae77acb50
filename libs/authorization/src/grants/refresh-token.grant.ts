// Rules kept: RFC 6749 6 (refresh request; `scope` may narrow, never widen: `invalid_scope`), spec 5.4.4 and RFC
// 9700 4.14.2 (rotation on every use; a consumed refresh token presented again revokes the whole family), RFC 8707
// 2.2 (`resource` must be the granted one), OAuth 2.1 4.3.1 (bound to the client it was issued to). Idle and
// absolute lifetimes end a family; without `offline_access` it also ends with the login session it came from.
import { Injectable, Logger } from '@nestjs/common';
import type { TokenResponse } from '@portcullis/extensions';
import { OAuthError, parseScope } from '@portcullis/protocol';
import { PrismaClient } from '@portcullis/persistence';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { GrantRepository } from '../tokens/grant.repository.js';
import { TokenIssuer } from '../tokens/token-issuer.service.js';
import { assertSameResource, refreshExpiry } from './authorization-code.grant.js';
import type { TokenGrant } from './token-grant.js';

/** `grant_type=refresh_token`. */
@Injectable()
export class RefreshTokenGrant implements TokenGrant {
  readonly grantType = 'refresh_token';
  readonly #logger = new Logger('RefreshTokenGrant');

  constructor(
    private readonly grants: GrantRepository,
    private readonly issuer: TokenIssuer,
    private readonly prisma: PrismaClient,
  ) {}

  async handle(params: RequestParameters, { client }: AuthenticatedOAuthClient): Promise<TokenResponse> {
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

    const consumption = await this.grants.consumeRefreshToken(stored);
    if (consumption.outcome === 'reused') {
      this.#logger.warn(`refresh token reused: revoking grant ${consumption.grantId}`);
      await this.grants.revokeGrant(consumption.grantId);
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
    if (consumption.outcome !== 'consumed') throw new OAuthError('invalid_grant', 'refresh token is invalid');
    const { token, grant } = consumption;

    const now = Date.now();
    if (grant.revokedAt || grant.absoluteExpiresAt.getTime() <= now) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid');
    }
    if (!grant.offlineAccess && !(await this.#sessionAlive(grant.sessionId))) {
      throw new OAuthError('invalid_grant', 'the login session this refresh token belongs to has ended');
    }
    assertSameResource(params.resources, grant.resource);

    const scopes = requestedScopes ?? token.scopes;
    const widened = scopes.filter((scope: string) => !token.scopes.includes(scope));
    if (widened.length > 0) {
      throw new OAuthError('invalid_scope', `scope exceeds the original grant: ${widened.join(' ')}`);
    }

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
      },
      ...(scopes.includes('openid') ? { idToken: { authTime: grant.authTime } } : {}),
    });
  }

  async #sessionAlive(sessionId: string | null): Promise<boolean> {
    if (!sessionId) return false;
    const session = await this.prisma.loginSession.findUnique({ where: { id: sessionId } });
    return session !== null && session.revokedAt === null && session.expiresAt.getTime() > Date.now();
  }
}
