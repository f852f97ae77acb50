import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
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
import { SecurityEvents } from '../events/security-events.js';
import { SigningKeyRepository } from './signing-key.repository.js';

/** The algorithm new keys are made for (RFC 7518 3.4); the only one published in metadata. */
export const SIGNING_ALGORITHM = 'ES256';

/**
 * How often every instance re-reads the keys when `signingKeys.reloadInterval` is not configured, in seconds.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys
 */
export const DEFAULT_KEY_RELOAD_INTERVAL = 30;

/** An unknown `kid` makes an instance re-read the keys at most this often, so foreign tokens cannot flood the DB. */
const UNKNOWN_KID_RELOAD_GAP_MS = 2_000;

/** A key that can sign: its id, algorithm and private key. */
export interface ActiveSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
}

/**
 * A stored key as `portcullis-admin keys list` shows it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-4.5 (kid)
 */
export interface SigningKeyInfo {
  readonly kid: string;
  readonly alg: string;
  readonly createdAt: Date;
  /** When a newer key took over; absent for the key that signs now. */
  readonly retiredAt?: Date;
  /** When it leaves `jwks_uri`: every token it signed has expired by then. Absent while it signs. */
  readonly publishedUntil?: Date;
  readonly encrypted: boolean;
}

/** What the key service reads from the options; the admin tool builds just this from the environment. */
export type SigningKeysOptions = Pick<
  AuthorizationServerOptions,
  'lifetimes' | 'keyEncryptionKey' | 'signingKeys'
>;

export class KeyDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyDecryptionError';
  }
}

/**
 * The authorization server's signing keys, kept in the database so every instance and every restart signs with
 * the same key and verifies what was issued before. The first boot makes one; private keys are sealed with
 * `KEY_ENCRYPTION_KEY` when it is set.
 *
 * Rotation: {@link rotate} retires the signing key and makes a new one, which signs from then on. Every instance
 * re-reads the keys every `signingKeys.reloadInterval` seconds, and at once (throttled) when asked to verify a
 * `kid` it does not know, so a rotation made by another instance or by the admin tool reaches all of them. Until
 * then an instance may still sign with the retired key, so a retired key stays in `jwks_uri` for the longest token
 * lifetime plus one reload interval after its retirement: every token it signed can be verified until it expires.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2 (jwks_uri)
 * @see https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('SigningKeys');
  #current?: ActiveSigningKey;
  #publicKeys: JWK[] = [];
  /** When a `kid` this instance did not know last made it re-read the keys. */
  #lastUnknownKidReload = 0;
  #reloading?: Promise<void>;
  #timer?: NodeJS.Timeout;

  constructor(
    private readonly keys: SigningKeyRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: SigningKeysOptions,
    @Optional() private readonly events?: SecurityEvents,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.options.keyEncryptionKey) {
      this.#logger.warn('KEY_ENCRYPTION_KEY is not set: private signing keys are stored unencrypted');
    }
    if ((await this.keys.countUnretired()) === 0) {
      await this.rotate();
    }
    await this.reload();
  }

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => {
      this.reload().catch((error: unknown) =>
        this.#logger.warn({ err: error }, 'reloading signing keys failed'),
      );
    }, this.#reloadIntervalMs());
    this.#timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.#timer);
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
   * The public keys to verify a token with. A `kid` this instance does not know may be a key another instance
   * made since the last reload: the keys are re-read first (at most every few seconds, so tokens signed by
   * strangers cannot turn into a database load).
   */
  async verificationKeys(kid: string | undefined): Promise<{ keys: JWK[] }> {
    const known = kid !== undefined && this.#publicKeys.some((key) => key.kid === kid);
    if (!known && Date.now() - this.#lastUnknownKidReload >= UNKNOWN_KID_RELOAD_GAP_MS) {
      this.#lastUnknownKidReload = Date.now();
      await this.reload();
    }
    return this.jwks();
  }

  /**
   * How long a retired key stays published, in milliseconds: the longest token lifetime (a token signed just
   * before retirement stays verifiable until it expires) plus one reload interval (another instance may sign with
   * the retired key until its next reload).
   */
  retention(): number {
    const { accessToken, idToken } = this.options.lifetimes;
    return Math.max(accessToken, idToken) * 1000 + this.#reloadIntervalMs();
  }

  /**
   * Makes a new key that signs from now on; the one before is retired (still published, no longer signing).
   * Refuses, before changing anything, when the key that signs now cannot be opened with this process's
   * `KEY_ENCRYPTION_KEY`: a key sealed with another one would stop every instance at its next reload.
   * Returns the new key id.
   */
  async rotate(): Promise<string> {
    const unretired = await this.keys.findUnretired();
    for (const row of unretired) this.#privateJwk(row);
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const published: JWK = { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' };
    const privateText = JSON.stringify(await exportJWK(privateKey));
    const key = this.options.keyEncryptionKey;
    const now = new Date();
    await this.keys.retireAllAndCreate({
      kid,
      alg: SIGNING_ALGORITHM,
      publicJwk: published as object,
      privateJwk: key ? seal(privateText, key, kid) : privateText,
      encrypted: key !== undefined,
      createdAt: now,
    });
    this.#logger.log(`new signing key ${kid}`);
    await this.events?.record('signing_key.rotated', {
      detail: {
        kid,
        ...(unretired.length === 0 ? { first: true } : { retired: unretired.map((row) => row.kid) }),
      },
    });
    await this.reload();
    return kid;
  }

  /** Every stored key, newest first, with when it leaves `jwks_uri`. */
  async list(): Promise<SigningKeyInfo[]> {
    const rows = await this.keys.findAllNewestFirst();
    return rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
      createdAt: row.createdAt,
      encrypted: row.encrypted,
      ...(row.retiredAt
        ? { retiredAt: row.retiredAt, publishedUntil: new Date(row.retiredAt.getTime() + this.retention()) }
        : {}),
    }));
  }

  /**
   * Re-reads the keys: the newest unretired one signs; every key retired less than {@link retention} ago is still
   * published. Older ones are deleted. Concurrent calls share one read.
   */
  reload(): Promise<void> {
    this.#reloading ??= this.#load().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async #load(): Promise<void> {
    const cutoff = new Date(Date.now() - this.retention());
    await this.keys.deleteRetiredBefore(cutoff);
    const rows = await this.keys.findAllNewestFirst();
    const active = rows.find((row) => row.retiredAt === null);
    if (!active) throw new Error('no active signing key');
    if (this.#current?.kid !== active.kid) {
      this.#current = {
        kid: active.kid,
        alg: active.alg,
        privateKey: (await importJWK(this.#privateJwk(active), active.alg)) as CryptoKey,
      };
    }
    this.#publicKeys = rows.map((row) => row.publicJwk as JWK);
  }

  #reloadIntervalMs(): number {
    return (this.options.signingKeys?.reloadInterval ?? DEFAULT_KEY_RELOAD_INTERVAL) * 1000;
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
