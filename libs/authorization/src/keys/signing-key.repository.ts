import { Injectable } from '@nestjs/common';
import { PrismaClient, type SigningKey } from '@portcullis/persistence';

/** A key to store: its public JWK as published in `jwks_uri`, its private JWK as text (sealed or not). */
export interface NewSigningKey {
  kid: string;
  alg: string;
  publicJwk: object;
  privateJwk: string;
  encrypted: boolean;
  createdAt: Date;
}

/**
 * The stored signing keys: the unretired one signs, retired ones stay published until they are deleted.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
@Injectable()
export class SigningKeyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** How many keys are not retired (normally one; none before the first boot). */
  countUnretired(): Promise<number> {
    return this.prisma.signingKey.count({ where: { retiredAt: null } });
  }

  /** The keys that are not retired. */
  findUnretired(): Promise<SigningKey[]> {
    return this.prisma.signingKey.findMany({ where: { retiredAt: null } });
  }

  /** Every stored key, newest first. */
  findAllNewestFirst(): Promise<SigningKey[]> {
    return this.prisma.signingKey.findMany({ orderBy: { createdAt: 'desc' } });
  }

  /**
   * Retires every unretired key at `key.createdAt` and stores `key`, in one transaction: there is never a moment
   * with no unretired key, or with two.
   */
  async retireAllAndCreate(key: NewSigningKey): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: key.createdAt } }),
      this.prisma.signingKey.create({ data: key }),
    ]);
  }

  /** Deletes the keys retired before `cutoff`. */
  async deleteRetiredBefore(cutoff: Date): Promise<void> {
    await this.prisma.signingKey.deleteMany({ where: { retiredAt: { lt: cutoff } } });
  }
}
