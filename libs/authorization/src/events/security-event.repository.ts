import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Prisma, PrismaClient, type SecurityEvent } from '@portcullis/persistence';

/** One security event to store. */
export interface NewSecurityEvent {
  readonly type: string;
  readonly userId?: string;
  readonly clientId?: string;
  readonly ip?: string;
  readonly requestId?: string;
  readonly detail?: Prisma.InputJsonObject;
}

/** How many expired events one sweep deletes at most. */
const DELETE_BATCH = 5_000;

/** The `security_events` table. */
@Injectable()
export class SecurityEventRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async insert(event: NewSecurityEvent): Promise<void> {
    await this.prisma.securityEvent.create({
      data: {
        id: randomUUID(),
        type: event.type,
        userId: event.userId ?? null,
        clientId: event.clientId ?? null,
        ip: event.ip ?? null,
        requestId: event.requestId ?? null,
        detail: event.detail ?? Prisma.DbNull,
      },
    });
  }

  /** Events since `since`, of `types` when given, oldest first, at most `limit`. */
  list(since: Date, types: readonly string[] = [], limit = 1_000): Promise<SecurityEvent[]> {
    return this.prisma.securityEvent.findMany({
      where: { at: { gte: since }, ...(types.length > 0 ? { type: { in: [...types] } } : {}) },
      orderBy: { at: 'asc' },
      take: limit,
    });
  }

  /** Deletes (a batch of) events older than `before`; returns how many. */
  async deleteBefore(before: Date): Promise<number> {
    const deleted = await this.prisma.$executeRaw`
      DELETE FROM "security_events" WHERE "id" IN (
        SELECT "id" FROM "security_events" WHERE "at" < ${before} ORDER BY "at" LIMIT ${DELETE_BATCH}
      )`;
    return deleted;
  }
}
