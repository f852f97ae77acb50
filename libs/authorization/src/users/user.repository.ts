import { Injectable } from '@nestjs/common';
import { PrismaClient, type User } from '@portcullis/persistence';
import { hashPassword } from './password-hasher.js';

/**
 * What a user may have besides the username: the claims the `profile` and `email` scopes grant (OpenID Connect Core
 * 5.4). `emailVerified` says the operator, or the proxy's upstream, vouches for the address.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims
 */
export interface UserProfile {
  readonly name?: string | null;
  readonly email?: string | null;
  readonly emailVerified?: boolean;
}

/** Local users: people who sign in with a username and password at this authorization server. */
@Injectable()
export class UserRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findByUsername(username: string): Promise<User | null> {
    return this.prisma.user.findUnique({ where: { username } });
  }

  findById(id: string): Promise<User | null> {
    return this.prisma.user.findUnique({ where: { id } });
  }

  async create(username: string, password: string, profile: UserProfile = {}): Promise<User> {
    return this.prisma.user.create({
      data: { username, passwordHash: await hashPassword(password), ...profile },
    });
  }

  /** Sets the claims `profile` and `email` grant; a member left out stays as it is, `null` removes it. */
  setProfile(userId: string, profile: UserProfile): Promise<User> {
    return this.prisma.user.update({ where: { id: userId }, data: profile });
  }

  /** Creates the user unless one with this name exists; true when it was created. */
  async ensure(username: string, password: string): Promise<boolean> {
    if (await this.findByUsername(username)) return false;
    const passwordHash = await hashPassword(password);
    const { count } = await this.prisma.user.createMany({
      data: [{ username, passwordHash }],
      skipDuplicates: true,
    });
    return count === 1;
  }

  list(): Promise<User[]> {
    return this.prisma.user.findMany({ orderBy: { createdAt: 'asc' } });
  }

  /**
   * Deletes the user in one transaction with its consents (and, in the proxy's database, its upstream identities and
   * the vault's tokens), after ending its live login sessions.
   */
  async delete(userId: string, now = new Date()): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.loginSession.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
      await tx.consent.deleteMany({ where: { userId } });
      // The proxy's database holds the upstream tables (the authorization server's does not, one schema per app):
      // there the user's identities at the upstream and the vault's tokens go with the account.
      const [upstream] = await tx.$queryRaw<{ present: boolean }[]>`
        SELECT to_regclass('upstream_tokens') IS NOT NULL AS present`;
      if (upstream?.present) {
        await tx.upstreamToken.deleteMany({ where: { userId } });
        await tx.upstreamIdentity.deleteMany({ where: { userId } });
      }
      await tx.user.delete({ where: { id: userId } });
    });
  }

  /** Sets a new password and ends the user's live login sessions, in one transaction; returns how many ended. */
  async setPassword(userId: string, password: string, now = new Date()): Promise<number> {
    const passwordHash = await hashPassword(password);
    const [, sessions] = await this.prisma.$transaction([
      this.prisma.user.update({ where: { id: userId }, data: { passwordHash } }),
      this.prisma.loginSession.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } }),
    ]);
    return sessions.count;
  }
}
