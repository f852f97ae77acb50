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

/** How many grants past their absolute lifetime one transaction deletes, with their codes and refresh tokens. */
const EXPIRED_GRANTS_PER_BATCH = 1000;

/**
 * How many expired rows of one table one statement deletes: however much history piled up (a million expired access
 * token records), each statement is short, holds its locks briefly and writes little WAL, and the sweep goes on
 * batch after batch until the table has no expired row left.
 */
const EXPIRED_ROWS_PER_BATCH = 5000;

/** The tables whose rows carry an `expires_at` past which they are deleted. Names, never input. */
type ExpiringTable =
  'pending_authorizations' | 'authorization_codes' | 'access_tokens' | 'login_sessions' | 'used_jwt_ids';

/**
 * The deletions of the housekeeping sweep, across tables: rows past their expiry, grants past their absolute
 * lifetime with their codes and refresh tokens, and dynamically registered clients no longer used. Every lookup it
 * makes is by an index (`expires_at`, `absolute_expires_at`, `client_id`), so its cost follows what it deletes, not
 * how much the tables hold.
 */
@Injectable()
export class HousekeepingRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The ids of (at most a batch of) grants whose absolute lifetime ended before `before`. */
  async findGrantsExpiredBefore(before: Date): Promise<string[]> {
    const rows = await this.prisma.authorizationGrant.findMany({
      where: { absoluteExpiresAt: { lt: before } },
      select: { id: true },
      take: EXPIRED_GRANTS_PER_BATCH,
    });
    return rows.map((grant) => grant.id);
  }

  /**
   * Deletes pending authorizations expired by `now`; codes, access token records and login sessions expired before
   * `before`; used JWT ids expired by `now`; and every grant whose absolute lifetime ended before `before`, each
   * batch of grants in one transaction with its refresh tokens and codes (a grant is never left without them, nor
   * they without it). Batches of {@link EXPIRED_ROWS_PER_BATCH} rows, until none is left.
   */
  async deleteExpired(now: Date, before: Date): Promise<ExpiredRowsDeleted> {
    const deleted = {
      pendingAuthorizations: await this.#deleteExpiredRows('pending_authorizations', now),
      authorizationCodes: await this.#deleteExpiredRows('authorization_codes', before),
      accessTokens: await this.#deleteExpiredRows('access_tokens', before),
      loginSessions: await this.#deleteExpiredRows('login_sessions', before),
      // A used jti only has to be remembered while its JWT could still be accepted.
      usedJwtIds: await this.#deleteExpiredRows('used_jwt_ids', now),
      grants: 0,
    };
    for (;;) {
      const grants = await this.findGrantsExpiredBefore(before);
      if (grants.length === 0) return deleted;
      const [, , gone] = await this.prisma.$transaction([
        this.prisma.refreshToken.deleteMany({ where: { grantId: { in: grants } } }),
        this.prisma.authorizationCode.deleteMany({ where: { grantId: { in: grants } } }),
        this.prisma.authorizationGrant.deleteMany({ where: { id: { in: grants } } }),
      ]);
      deleted.grants += gone.count;
      // A batch that deleted nothing (another instance's sweep took them) ends the loop as surely as a short one.
      if (grants.length < EXPIRED_GRANTS_PER_BATCH || gone.count === 0) return deleted;
    }
  }

  /** Deletes the rows of `table` that expired before `before`, a batch a statement; how many. */
  async #deleteExpiredRows(table: ExpiringTable, before: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.prisma.$executeRawUnsafe(
        `DELETE FROM "${table}" WHERE ctid = ANY(ARRAY(SELECT ctid FROM "${table}" WHERE "expires_at" < $1 LIMIT ${EXPIRED_ROWS_PER_BATCH}))`,
        before,
      );
      total += count;
      if (count < EXPIRED_ROWS_PER_BATCH) return total;
    }
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
