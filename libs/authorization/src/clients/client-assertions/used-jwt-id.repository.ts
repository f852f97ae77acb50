import { Injectable } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';

/**
 * The `jti`s of JWTs accepted once (client assertions, and assertions an extension's grant redeems), by issuer, until
 * they expire: shared by every instance, kept across restarts.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3 (item 7: a `jti` may be used once)
 */
@Injectable()
export class UsedJwtIds {
  constructor(private readonly prisma: PrismaClient) {}

  /** Records `jti` of `issuer`; true only for the first caller (a replay, concurrent or later, gets false). */
  async use(issuer: string, jti: string, expiresAt: Date): Promise<boolean> {
    const { count } = await this.prisma.usedJwtId.createMany({
      data: [{ issuer, jti, expiresAt }],
      skipDuplicates: true,
    });
    return count === 1;
  }
}
