import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { open, seal } from './key-encryption.js';

/** The algorithm new keys are made for (RFC 7518 3.4); the only one published in metadata. */
export const SIGNING_ALGORITHM = 'ES256';

/** A key that can sign: its id, algorithm and private key. */
export interface ActiveSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
}

export class KeyDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyDecryptionError';
  }
}

/**
 * The authorization server's signing keys, kept in the database so every instance and every restart signs with
 * the same key and verifies what was issued before. The first boot makes one; private keys are sealed with
 * `KEY_ENCRYPTION_KEY` when it is set. A retired key stays published until every token it signed has expired.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2 (jwks_uri)
 */
@Injectable()
export class SigningKeysService implements OnModuleInit {
  readonly #logger = new Logger('SigningKeys');
  #current?: ActiveSigningKey;
  #publicKeys: JWK[] = [];

  constructor(
    private readonly prisma: PrismaClient,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.options.keyEncryptionKey) {
      this.#logger.warn('KEY_ENCRYPTION_KEY is not set: private signing keys are stored unencrypted');
    }
    if ((await this.prisma.signingKey.count({ where: { retiredAt: null } })) === 0) {
      await this.rotate();
    }
    await this.reload();
  }

  /** The key that signs now. */
  current(): ActiveSigningKey {
    if (!this.#current) throw new Error('signing keys are not loaded');
    return this.#current;
  }

  /** The public JWK Set served at `jwks_uri`. */
  jwks(): { keys: JWK[] } {
    return { keys: this.#publicKeys };
  }

  /**
   * Makes a new key that signs from now on; the one before is retired (still published, no longer signing).
   * Returns the new key id.
   */
  async rotate(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const published: JWK = { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' };
    const privateText = JSON.stringify(await exportJWK(privateKey));
    const key = this.options.keyEncryptionKey;
    const now = new Date();
    await this.prisma.$transaction([
      this.prisma.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now } }),
      this.prisma.signingKey.create({
        data: {
          kid,
          alg: SIGNING_ALGORITHM,
          publicJwk: published as object,
          privateJwk: key ? seal(privateText, key, kid) : privateText,
          encrypted: key !== undefined,
          createdAt: now,
        },
      }),
    ]);
    this.#logger.log(`new signing key ${kid}`);
    await this.reload();
    return kid;
  }

  /**
   * Re-reads the keys: the newest unretired one signs; every key retired less than the longest token lifetime ago
   * is still published. Older ones are deleted.
   */
  async reload(): Promise<void> {
    const lifetimes = this.options.lifetimes;
    const longest = Math.max(lifetimes.accessToken, lifetimes.idToken) * 1000;
    const cutoff = new Date(Date.now() - longest);
    await this.prisma.signingKey.deleteMany({ where: { retiredAt: { lt: cutoff } } });
    const rows = await this.prisma.signingKey.findMany({ orderBy: { createdAt: 'desc' } });
    const active = rows.find((row) => row.retiredAt === null);
    if (!active) throw new Error('no active signing key');
    this.#current = {
      kid: active.kid,
      alg: active.alg,
      privateKey: (await importJWK(this.#privateJwk(active), active.alg)) as CryptoKey,
    };
    this.#publicKeys = rows.map((row) => row.publicJwk as JWK);
  }

  #privateJwk(row: { kid: string; privateJwk: string; encrypted: boolean }): JWK {
    if (!row.encrypted) return JSON.parse(row.privateJwk) as JWK;
    const key = this.options.keyEncryptionKey;
    if (!key) {
      throw new KeyDecryptionError(`signing key ${row.kid} is encrypted but KEY_ENCRYPTION_KEY is not set`);
    }
    try {
      return JSON.parse(open(row.privateJwk, key, row.kid)) as JWK;
    } catch {
      throw new KeyDecryptionError(`signing key ${row.kid} cannot be decrypted with this KEY_ENCRYPTION_KEY`);
    }
  }
}
