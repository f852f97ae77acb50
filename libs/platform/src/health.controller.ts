import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DATABASE, type Database } from '@portcullis/persistence';

/** Liveness and readiness probes, for orchestrators and for `npm start` to know when the stack is up. */
@Controller()
export class HealthController {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** Alive: the process serves HTTP. Says nothing about dependencies, so a restart is never triggered by them. */
  @Get('healthz')
  @HttpCode(200)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready: the database answers and every shipped migration is applied; 503 with the reason otherwise. */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    reply.header('cache-control', 'no-store');
    try {
      await this.database.ping();
    } catch {
      reply.status(503);
      return { status: 'unavailable', database: 'unreachable' };
    }
    const pending = await this.database.pendingMigrations().catch(() => null);
    if (pending === null || pending.length > 0) {
      reply.status(503);
      return { status: 'unavailable', database: 'ok', pendingMigrations: pending ?? 'unknown' };
    }
    return { status: 'ok', database: 'ok' };
  }
}
