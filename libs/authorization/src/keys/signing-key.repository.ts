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
  /** When it starts signing: `createdAt` for the first key or an emergency, later for a staged one. */
  activatesAt: Date;
}

/** The advisory lock under which the first signing key is made (any constant of this app's own). */
const FIRST_KEY_LOCK = 0x706f7274_6b657973n;

/**
 * The stored signing keys. Each signs from its `activatesAt` until its `retiredAt` (the next key's `activatesAt`);
 * those intervals never overlap and leave no gap, so at any moment exactly one key signs. Every stored key is
 * published, staged ones before they sign and retired ones until they are deleted.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
@Injectable()
export class SigningKeyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** How many keys have no successor (one once the first key exists; none before the first boot). */
  countUnretired(): Promise<number> {
    return this.prisma.signingKey.count({ where: { retiredAt: null } });
  }

  /** The keys that sign at `at` or will sign later (the current key and a staged one). */
  findSigningAfter(at: Date): Promise<SigningKey[]> {
    return this.prisma.signingKey.findMany({
      where: { OR: [{ retiredAt: null }, { retiredAt: { gt: at } }] },
    });
  }

  /** Every stored key, newest first. */
  findAllNewestFirst(): Promise<SigningKey[]> {
    return this.prisma.signingKey.findMany({ orderBy: { createdAt: 'desc' } });
  }

  /**
   * Stores `key` and ends every other key's signing at `key.activatesAt`, in one transaction: a key that would sign
   * past that moment (the current one, or one staged earlier) retires then, so the keys' signing intervals still
   * cover all time exactly once. A staged key that had not activated by then never signs.
   */
  async stage(key: NewSigningKey): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.signingKey.updateMany({
        where: { OR: [{ retiredAt: null }, { retiredAt: { gt: key.activatesAt } }] },
        data: { retiredAt: key.activatesAt },
      }),
      this.prisma.signingKey.create({ data: key }),
    ]);
  }

  /**
   * Stores the first key, unless another instance stored one meanwhile: instances booting together on an empty
   * database each find no key, and each would make its own (each signing with the key it made until it re-reads
   * them, and publishing only that one: tokens of one instance refused by resource servers that fetched the other's
   * key set). Under a transaction-scoped advisory lock, so only the first of them stores a key; true for that one.
   */
  async stageFirst(key: NewSigningKey): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${FIRST_KEY_LOCK})`;
      if ((await tx.signingKey.count({ where: { retiredAt: null } })) > 0) return false;
      await tx.signingKey.create({ data: key });
      return true;
    });
  }

  /** Deletes one key whose signing ended at or before `at`; returns whether there was one. */
  async deleteRetired(kid: string, at: Date): Promise<boolean> {
    const { count } = await this.prisma.signingKey.deleteMany({ where: { kid, retiredAt: { lte: at } } });
    return count === 1;
  }

  /** Deletes the keys retired before `cutoff`. */
  async deleteRetiredBefore(cutoff: Date): Promise<void> {
    await this.prisma.signingKey.deleteMany({ where: { retiredAt: { lt: cutoff } } });
  }
}
