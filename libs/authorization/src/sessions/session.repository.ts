import { Injectable } from '@nestjs/common';
import { PrismaClient, type LoginSession } from '@portcullis/persistence';

/** The rows behind login sessions, by the hash of the id their cookie carries. */
@Injectable()
export class SessionRepository {
  constructor(private readonly prisma: PrismaClient) {}

  find(rowId: string): Promise<LoginSession | null> {
    return this.prisma.loginSession.findUnique({ where: { id: rowId } });
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
