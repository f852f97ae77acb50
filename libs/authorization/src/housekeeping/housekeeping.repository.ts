import { Injectable } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';

/** How many rows one sweep of expired rows deleted, by table. */
export interface ExpiredRowsDeleted {
  pendingAuthorizations: number;
  authorizationCodes: number;
  accessTokens: number;
  loginSessions: number;
  grants: number;
  usedJwtIds: number;
}

/** How many grants past their absolute lifetime one sweep deletes at most. */
const EXPIRED_GRANTS_PER_SWEEP = 1000;

/**
 * The deletions of the housekeeping sweep, across tables: rows past their expiry, grants past their absolute
 * lifetime with their codes and refresh tokens, and dynamically registered clients no longer used.
 */
@Injectable()
export class HousekeepingRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The ids of (at most a batch of) grants whose absolute lifetime ended before `before`. */
  async findGrantsExpiredBefore(before: Date): Promise<string[]> {
    const rows = await this.prisma.authorizationGrant.findMany({
      where: { absoluteExpiresAt: { lt: before } },
      select: { id: true },
      take: EXPIRED_GRANTS_PER_SWEEP,
    });
    return rows.map((grant) => grant.id);
  }

  /**
   * Deletes, in one transaction: pending authorizations expired by `now`; codes, access token records and login
   * sessions expired before `before`; and the grants `expiredGrants` with their refresh tokens and codes.
   */
  async deleteExpired(now: Date, before: Date, expiredGrants: string[]): Promise<ExpiredRowsDeleted> {
    const [pendingAuthorizations, authorizationCodes, accessTokens, loginSessions, , , grants, usedJwtIds] =
      await this.prisma.$transaction([
        this.prisma.pendingAuthorization.deleteMany({ where: { expiresAt: { lt: now } } }),
        this.prisma.authorizationCode.deleteMany({ where: { expiresAt: { lt: before } } }),
        this.prisma.accessToken.deleteMany({ where: { expiresAt: { lt: before } } }),
        this.prisma.loginSession.deleteMany({ where: { expiresAt: { lt: before } } }),
        this.prisma.refreshToken.deleteMany({ where: { grantId: { in: expiredGrants } } }),
        this.prisma.authorizationCode.deleteMany({ where: { grantId: { in: expiredGrants } } }),
        this.prisma.authorizationGrant.deleteMany({ where: { id: { in: expiredGrants } } }),
        // A used jti only has to be remembered while its JWT could still be accepted.
        this.prisma.usedJwtId.deleteMany({ where: { expiresAt: { lt: now } } }),
      ]);
    return {
      pendingAuthorizations: pendingAuthorizations.count,
      authorizationCodes: authorizationCodes.count,
      accessTokens: accessTokens.count,
      loginSessions: loginSessions.count,
      grants: grants.count,
      usedJwtIds: usedJwtIds.count,
    };
  }

  /**
   * Deletes the dynamically registered clients never used since before `unusedBefore`, or last used before
   * `idleBefore`, that have no grant still live at `now`, with their grants, refresh tokens, codes, access token
   * records and consents, in one statement: the condition is decided in the statement that deletes, so a client
   * authorized meanwhile stays, and nothing of a deleted client is left half-removed. Returns their client ids.
   */
  async deleteUnusedRegistrations(now: Date, unusedBefore: Date, idleBefore: Date): Promise<string[]> {
    const gone = await this.prisma.$queryRaw<{ client_id: string }[]>`
      WITH gone AS (
        DELETE FROM "clients" AS c
        WHERE c."origin" = 'dynamic'
          AND ((c."last_used_at" IS NULL AND c."created_at" < ${unusedBefore})
            OR c."last_used_at" < ${idleBefore})
          AND NOT EXISTS (
            SELECT 1 FROM "grants" AS g
            WHERE g."client_id" = c."client_id" AND g."revoked_at" IS NULL AND g."absolute_expires_at" > ${now})
        RETURNING c."client_id"
      ),
      grants_gone AS (DELETE FROM "grants" WHERE "client_id" IN (SELECT "client_id" FROM gone) RETURNING "id"),
      refresh_gone AS (DELETE FROM "refresh_tokens" WHERE "grant_id" IN (SELECT "id" FROM grants_gone)),
      codes_gone AS (DELETE FROM "authorization_codes" WHERE "client_id" IN (SELECT "client_id" FROM gone)),
      tokens_gone AS (DELETE FROM "access_tokens" WHERE "client_id" IN (SELECT "client_id" FROM gone)),
      consents_gone AS (DELETE FROM "consents" WHERE "client_id" IN (SELECT "client_id" FROM gone))
      SELECT "client_id" FROM gone`;
    return gone.map((row) => row.client_id);
  }
}
