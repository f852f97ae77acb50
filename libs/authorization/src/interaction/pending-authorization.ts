import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';

/** A validated authorization request, as it waits for login and consent. */
export interface ValidatedAuthorization {
  readonly clientId: string;
  readonly redirectUri: string;
  /** Whether the authorization request carried `redirect_uri` (absent in requests saved before it was recorded). */
  readonly redirectUriSent?: boolean;
  readonly state?: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly scopes: readonly string[];
  readonly nonce?: string;
  readonly prompt: readonly string[];
}

/**
 * Pending authorizations, by a random handle the login and consent forms carry (stored hashed). Each is taken
 * exactly once: a double-submitted consent form cannot mint two codes.
 */
@Injectable()
export class PendingAuthorizations {
  constructor(
    private readonly prisma: PrismaClient,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async save(request: ValidatedAuthorization): Promise<string> {
    const handle = randomBytes(32).toString('base64url');
    await this.prisma.pendingAuthorization.create({
      data: {
        id: hash(handle),
        clientId: request.clientId,
        request: { ...request } as object,
        expiresAt: new Date(Date.now() + this.options.lifetimes.interaction * 1000),
      },
    });
    return handle;
  }

  /** The pending request, if the handle is known and not expired. */
  async find(handle: string | undefined): Promise<ValidatedAuthorization | undefined> {
    if (!handle) return undefined;
    const row = await this.prisma.pendingAuthorization.findUnique({ where: { id: hash(handle) } });
    if (!row || row.expiresAt.getTime() <= Date.now()) return undefined;
    return row.request as unknown as ValidatedAuthorization;
  }

  /** Removes the pending request; true only for the one caller that removed it. */
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
