import { Injectable } from '@nestjs/common';
import { Prisma, PrismaClient, UnitOfWork, type LoginSession } from '@portcullis/persistence';

/** A login session read with what its user consented to for one client and resource (see `findWithConsent`). */
export interface SessionWithConsent {
  session: LoginSession;
  /** The scopes the session's user allowed the client for the resource; undefined when they never did. */
  consentedScopes: string[] | undefined;
}

/** A row of {@link SessionRepository.findWithConsent}: the session's columns and the consent's scopes. */
interface SessionConsentRow {
  id: string;
  user_id: string;
  csrf_secret: string;
  authenticated_at: Date;
  amr: string[];
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
  consent_scopes: string[] | null;
}

/** The rows behind login sessions, by the hash of the id their cookie carries. */
@Injectable()
export class SessionRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly work: UnitOfWork,
  ) {}

  find(rowId: string): Promise<LoginSession | null> {
    return this.prisma.loginSession.findUnique({ where: { id: rowId } });
  }

  /**
   * A session with its user's consent to `clientId` for `resource`, in one statement: what an authorization request
   * that may need neither a sign-in nor a consent page decides on. Null when the session is not stored.
   */
  async findWithConsent(
    rowId: string,
    clientId: string,
    resource: string,
  ): Promise<SessionWithConsent | null> {
    const rows = await this.work.query<SessionConsentRow>(Prisma.sql`
      SELECT s.id, s.user_id::text AS user_id, s.csrf_secret, s.authenticated_at, COALESCE(s.amr, '{}') AS amr,
             s.expires_at, s.revoked_at, s.created_at, c.scopes AS consent_scopes
        FROM login_sessions s
        LEFT JOIN consents c ON c.user_id = s.user_id AND c.client_id = ${clientId} AND c.resource = ${resource}
       WHERE s.id = ${rowId}`);
    const row = rows[0];
    if (!row) return null;
    return {
      session: {
        id: row.id,
        userId: row.user_id,
        csrfSecret: row.csrf_secret,
        authenticatedAt: row.authenticated_at,
        amr: row.amr,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        createdAt: row.created_at,
      },
      consentedScopes: row.consent_scopes ?? undefined,
    };
  }

  create(session: {
    id: string;
    userId: string;
    csrfSecret: string;
    authenticatedAt: Date;
    amr: string[];
    expiresAt: Date;
  }): Promise<LoginSession> {
    return this.prisma.loginSession.create({ data: session });
  }

  /** Ends a session: its cookie no longer signs anyone in, on any instance. */
  async revoke(rowId: string, now = new Date()): Promise<void> {
    await this.prisma.loginSession.updateMany({
      where: { id: rowId, revokedAt: null },
      data: { revokedAt: now },
    });
  }
}
