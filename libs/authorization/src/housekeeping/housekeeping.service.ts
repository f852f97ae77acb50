import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { PeriodicSweep } from './periodic-sweep.js';

/** How often expired rows are swept. */
const INTERVAL_MS = 10 * 60_000;
/** Expired rows are kept this long for diagnosis before they go. */
const GRACE_MS = 60 * 60_000;

/** What one sweep deleted, by table. */
export interface SweepResult {
  pendingAuthorizations: number;
  authorizationCodes: number;
  accessTokens: number;
  loginSessions: number;
  grants: number;
  /** Dynamically registered clients deleted as unused or idle, with their dead grants, tokens and consents. */
  clients: number;
}

/**
 * Deletes what can no longer be used: pending authorizations, codes, access token records and login sessions
 * past their expiry, and whole grants past their absolute lifetime with every code and refresh token of theirs.
 * A consumed refresh token stays as long as its grant does, because presenting it again must still revoke the
 * family (RFC 9700 4.14.2). Dynamically registered clients that never completed an authorization within
 * `DCR_UNUSED_CLIENT_TTL`, or have had no live grant for `DCR_IDLE_CLIENT_TTL` since their last one, go too, so that
 * registrations repeated by clients that do not keep their credentials do not pile up (RFC 7591 leaves their
 * lifetime to the server).
 */
@Injectable()
export class HousekeepingService extends PeriodicSweep {
  protected readonly intervalMs = INTERVAL_MS;
  protected readonly logger = new Logger('Housekeeping');

  constructor(
    private readonly prisma: PrismaClient,
    @Optional()
    @Inject(AUTHORIZATION_SERVER_OPTIONS)
    private readonly options?: Pick<AuthorizationServerOptions, 'registration'>,
  ) {
    super();
  }

  async sweep(now = new Date()): Promise<SweepResult> {
    const before = new Date(now.getTime() - GRACE_MS);
    const expiredGrants = (
      await this.prisma.authorizationGrant.findMany({
        where: { absoluteExpiresAt: { lt: before } },
        select: { id: true },
        take: 1000,
      })
    ).map((grant) => grant.id);
    const [pendingAuthorizations, authorizationCodes, accessTokens, loginSessions, , , grants] =
      await this.prisma.$transaction([
        this.prisma.pendingAuthorization.deleteMany({ where: { expiresAt: { lt: now } } }),
        this.prisma.authorizationCode.deleteMany({ where: { expiresAt: { lt: before } } }),
        this.prisma.accessToken.deleteMany({ where: { expiresAt: { lt: before } } }),
        this.prisma.loginSession.deleteMany({ where: { expiresAt: { lt: before } } }),
        this.prisma.refreshToken.deleteMany({ where: { grantId: { in: expiredGrants } } }),
        this.prisma.authorizationCode.deleteMany({ where: { grantId: { in: expiredGrants } } }),
        this.prisma.authorizationGrant.deleteMany({ where: { id: { in: expiredGrants } } }),
      ]);
    const result = {
      pendingAuthorizations: pendingAuthorizations.count,
      authorizationCodes: authorizationCodes.count,
      accessTokens: accessTokens.count,
      loginSessions: loginSessions.count,
      grants: grants.count,
      clients: await this.#sweepRegistrations(now),
    };
    if (Object.values(result).some((count) => count > 0)) this.logger.log(result, 'swept expired rows');
    return result;
  }

  /**
   * Deletes the dynamically registered clients that are unused or idle, and everything of theirs, in one statement:
   * the condition (no live grant) is decided in the same statement that deletes, so a client authorized meanwhile
   * stays, and nothing of a deleted client is left half-removed.
   */
  async #sweepRegistrations(now: Date): Promise<number> {
    const { unusedClientTtl, idleClientTtl } = this.options?.registration ?? {};
    if (unusedClientTtl === undefined || idleClientTtl === undefined) return 0;
    const unusedBefore = new Date(now.getTime() - unusedClientTtl * 1000);
    const idleBefore = new Date(now.getTime() - idleClientTtl * 1000);
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
    if (gone.length > 0) {
      this.logger.log({ clients: gone.map((row) => row.client_id) }, 'deleted unused or idle registrations');
    }
    return gone.length;
  }
}
