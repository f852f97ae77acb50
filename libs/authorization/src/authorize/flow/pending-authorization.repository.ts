import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import {
  PendingAuthorizationSchema,
  type InteractionProgress,
  type PendingAuthorization,
  type ValidatedAuthorization,
} from './pending-authorization.js';

/**
 * Pending authorizations, by a random handle the interaction pages and forms carry (stored hashed, so a database
 * reader cannot continue someone's sign-in). Each is taken exactly once: a double-submitted form cannot mint two
 * codes.
 */
@Injectable()
export class PendingAuthorizations {
  readonly #logger = new Logger('PendingAuthorizations');

  constructor(
    private readonly prisma: PrismaClient,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  /** Stores a request and its progress so far; returns the handle. */
  async save(pending: PendingAuthorization): Promise<string> {
    const handle = randomBytes(32).toString('base64url');
    await this.prisma.pendingAuthorization.create({
      data: {
        id: hash(handle),
        clientId: pending.request.clientId,
        request: { request: pending.request, progress: pending.progress } as object,
        expiresAt: new Date(Date.now() + this.options.lifetimes.interaction * 1000),
      },
    });
    return handle;
  }

  /**
   * The pending authorization, if the handle is known, unexpired and its row reads as one (a row that does not,
   * e.g. one written by an older version, counts as expired).
   */
  async find(handle: string | undefined): Promise<PendingAuthorization | undefined> {
    if (!handle) return undefined;
    const row = await this.prisma.pendingAuthorization.findUnique({ where: { id: hash(handle) } });
    if (!row || row.expiresAt.getTime() <= Date.now()) return undefined;
    const parsed = PendingAuthorizationSchema.safeParse(row.request);
    if (!parsed.success) {
      this.#logger.warn({ issues: parsed.error.issues.length }, 'a pending authorization did not parse');
      return undefined;
    }
    return parsed.data;
  }

  /** Records progress; false when the pending authorization is gone (answered or expired). */
  async record(
    handle: string,
    request: ValidatedAuthorization,
    progress: InteractionProgress,
  ): Promise<boolean> {
    const { count } = await this.prisma.pendingAuthorization.updateMany({
      where: { id: hash(handle), expiresAt: { gt: new Date() } },
      data: { request: { request, progress } as object },
    });
    return count === 1;
  }

  /** Removes the pending authorization; true only for the one caller that removed it. */
  async take(handle: string): Promise<boolean> {
    const { count } = await this.prisma.pendingAuthorization.deleteMany({
      where: { id: hash(handle), expiresAt: { gt: new Date() } },
    });
    return count === 1;
  }
}

function hash(handle: string): string {
  return createHash('sha256').update(handle).digest('base64url');
}

/** The id a pending authorization is stored under: SHA-256 of its handle, so a database reader cannot continue it. */
export const pendingAuthorizationId = hash;
