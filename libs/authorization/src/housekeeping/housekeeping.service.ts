import { Injectable, Logger } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';
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
}

/**
 * Deletes what can no longer be used: pending authorizations, codes, access token records and login sessions
 * past their expiry, and whole grants past their absolute lifetime with every code and refresh token of theirs.
 * A consumed refresh token stays as long as its grant does, because presenting it again must still revoke the
 * family (RFC 9700 4.14.2).
 */
@Injectable()
export class HousekeepingService extends PeriodicSweep {
  protected readonly intervalMs = INTERVAL_MS;
  protected readonly logger = new Logger('Housekeeping');

  constructor(private readonly prisma: PrismaClient) {
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
    };
    if (Object.values(result).some((count) => count > 0)) this.logger.log(result, 'swept expired rows');
    return result;
  }
}
