import { Injectable, Logger } from '@nestjs/common';
import type { OAuthClient } from '../clients/client.js';
import { IssuedTokens } from '../introspection/issued-tokens.service.js';
import { GrantRepository } from '../tokens/grant.repository.js';

/**
 * What a revocation did, for the log and the tests; the client always gets the same empty 200.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.2
 */
export type RevocationOutcome = 'revoked-access-token' | 'revoked-grant' | 'not-found' | 'other-client';

/**
 * Revokes a token for the client it was issued to (RFC 7009 2.1): an access token by its `jti` (only that token),
 * a refresh token with its whole family, meaning the grant with every code, refresh token and access token
 * descended from it (RFC 7009 2.1: "SHOULD also invalidate all access tokens based on the same authorization
 * grant"; RFC 9700 4.14.2). A token of another client is left alone, and an unknown, expired or foreign token is
 * nothing to revoke: the endpoint answers 200 either way (RFC 7009 2.2), so it is no oracle for tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.2
 */
@Injectable()
export class RevocationService {
  readonly #logger = new Logger('Revocation');

  constructor(
    private readonly tokens: IssuedTokens,
    private readonly grants: GrantRepository,
  ) {}

  async revoke(token: string, hint: string | undefined, client: OAuthClient): Promise<RevocationOutcome> {
    const found = await this.tokens.find(token, hint);
    if (!found) return 'not-found';
    if (found.kind === 'access_token') {
      if (found.record.clientId !== client.clientId) return this.#refused(client);
      await this.grants.revokeAccessToken(found.record.jti, client.clientId);
      return 'revoked-access-token';
    }
    if (found.grant.clientId !== client.clientId) return this.#refused(client);
    await this.grants.revokeGrant(found.grant.id);
    this.#logger.log(`client ${client.clientId} revoked grant ${found.grant.id}`);
    return 'revoked-grant';
  }

  #refused(client: OAuthClient): RevocationOutcome {
    this.#logger.warn(`client ${client.clientId} tried to revoke a token issued to another client`);
    return 'other-client';
  }
}
