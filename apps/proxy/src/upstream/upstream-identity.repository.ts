import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser, UserProfile } from '@portcullis/authorization';
import { Prisma, PrismaClient } from '@portcullis/persistence';
import type { UpstreamProviderName } from './providers/upstream-provider.js';

/**
 * Stored instead of a password hash for people who sign in upstream: not an argon2 PHC string, so no password
 * ever verifies against it.
 */
const NO_PASSWORD = '!upstream';

/**
 * Local users for upstream identities. The key is the provider preset, the upstream's `iss` (or the API base that
 * stands for it, GitHub's) and its stable subject together (OIDC Core 5.7: only an issuer and a subject identify a
 * person; an email or a username may be reassigned), and the local user's id becomes the `sub` of the proxy's own
 * tokens, so no upstream identifier leaves the proxy inside a token. The person's name and email, as the upstream
 * states them at each sign-in, are kept on the local user: the proxy is an OpenID provider too, and grants them as
 * the claims of its own `profile` and `email` scopes (OIDC Core 5.4).
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#ClaimStability
 */
@Injectable()
export class UpstreamIdentities {
  constructor(private readonly prisma: PrismaClient) {}

  /** The local user of `provider` + `issuer` + `subject`, if that person signed in before; nothing is written. */
  async userIdOf(key: {
    readonly provider: UpstreamProviderName;
    readonly issuer: string;
    readonly subject: string;
  }): Promise<string | undefined> {
    const { provider, issuer, subject } = key;
    const identity = await this.prisma.upstreamIdentity.findUnique({
      where: { provider_issuer_subject: { provider, issuer, subject } },
      select: { userId: true },
    });
    return identity?.userId;
  }

  /**
   * The local user of `provider` + `issuer` + `subject`, created on first sign-in, with the `profile` the upstream
   * stated this time (a member it did not state is left as it was).
   */
  async userFor(
    key: { readonly provider: UpstreamProviderName; readonly issuer: string; readonly subject: string },
    displayName: string,
    profile: UserProfile = {},
  ): Promise<AuthenticatedUser> {
    const { provider, issuer, subject } = key;
    const where = { provider_issuer_subject: { provider, issuer, subject } };
    for (let attempt = 0; attempt < 2; attempt++) {
      const existing = await this.prisma.upstreamIdentity.findUnique({ where });
      if (existing) {
        await this.prisma.upstreamIdentity.update({
          where,
          data: { lastSignInAt: new Date() },
        });
        if (Object.keys(profile).length > 0) {
          await this.prisma.user.update({ where: { id: existing.userId }, data: profile });
        }
        return { id: existing.userId, username: displayName };
      }
      try {
        const user = await this.prisma.$transaction(async (tx) => {
          const created = await tx.user.create({
            data: { username: localUsername(key), passwordHash: NO_PASSWORD, ...profile },
          });
          await tx.upstreamIdentity.create({
            data: { provider, issuer, subject, userId: created.id, lastSignInAt: new Date() },
          });
          return created;
        });
        return { id: user.id, username: displayName };
      } catch (error) {
        // Two first sign-ins of one person at once: the other one created the user; read it on the next turn.
        if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
      }
    }
    throw new Error('the upstream identity could not be stored');
  }
}

/**
 * Unique per upstream identity and readable in `portcullis-admin users list`: `<sub>@<issuer without scheme>`, the
 * provider in front for a preset other than `oidc` (`github:583231@api.github.com`).
 */
export function localUsername(key: {
  readonly provider: UpstreamProviderName;
  readonly issuer: string;
  readonly subject: string;
}): string {
  const name = `${key.subject}@${key.issuer.replace(/^https?:\/\//, '')}`;
  return key.provider === 'oidc' ? name : `${key.provider}:${name}`;
}
