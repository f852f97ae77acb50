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
import { SigningKeyRepository, type NewSigningKey } from './signing-key.repository.js';
import { DEFAULT_JWKS_MAX_AGE, defaultActivationDelay } from './signing-key-timing.js';

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

/** Where a key is in its life: published before it signs (`staged`), signing, or published after (`retired`). */
export type SigningKeyStatus = 'staged' | 'signing' | 'retired';

/**
 * A stored key as `portcullis-admin keys list` shows it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-4.5 (kid)
 */
export interface SigningKeyInfo {
  readonly kid: string;
  readonly alg: string;
  readonly status: SigningKeyStatus;
  /** When it was made, and published. */
  readonly createdAt: Date;
  /** When it starts (or started) signing. */
  readonly activatesAt: Date;
  /** When it stops (or stopped) signing: the next key's activation; absent while there is no next key. */
  readonly retiredAt?: Date;
  /** When it leaves `jwks_uri`: every token it signed has expired by then. Absent while there is no next key. */
  readonly publishedUntil?: Date;
  readonly encrypted: boolean;
}

/** What {@link SigningKeysService.rotate} made. */
export interface RotatedSigningKey {
  readonly kid: string;
  /** When it starts signing: now for the first key and with `now`, else after the activation delay. */
  readonly activatesAt: Date;
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

/** `keys withdraw` of a key that signs now or will, or that does not exist: nothing was changed. */
export class KeyWithdrawalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyWithdrawalError';
  }
}

/** A key that signs now or will: its private key and the interval it signs in (epoch milliseconds). */
interface Signer extends ActiveSigningKey {
  readonly activatesAt: number;
  readonly retiredAt: number | undefined;
}

/**
 * The authorization server's signing keys, kept in the database so every instance and every restart signs with
 * the same key and verifies what was issued before. The first boot makes one, which signs at once; private keys are
 * sealed with `KEY_ENCRYPTION_KEY` when it is set.
 *
 * Rotation: {@link rotate} stages a new key. It is published in `jwks_uri` at once and starts signing only after the
 * activation delay (`signing-key-timing.ts`), when every key set a resource server may hold has it; the key before
 * signs until then. Each instance re-reads the keys every `signingKeys.reloadInterval` seconds, and at once
 * (throttled) when asked to verify a `kid` it does not know, and picks the key to sign with by the clock: the newest
 * one whose activation has passed. So every instance switches at the same moment, without coordination. A retired
 * key stays in `jwks_uri` for the longest token lifetime plus one reload interval after it stopped signing: every
 * token it signed can be verified until it expires. An emergency (`rotate({ now: true })`, then {@link withdraw} of a
 * compromised key) skips the staging, at a cost docs/operating.md's "Signing keys" describes.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2 (jwks_uri)
 * @see https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('SigningKeys');
  /** The keys that sign now or will, newest activation first. */
  #signers: Signer[] = [];
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
      await this.#first();
    }
    await this.reload();
  }

  /** The first key, which signs at once; made by only one of several instances booting together. */
  async #first(): Promise<void> {
    const now = new Date();
    const { kid, row } = await this.#newKey(now, now);
    if (!(await this.keys.stageFirst(row))) return;
    this.#logger.log(`first signing key ${kid}`);
    await this.events?.record('signing_key.rotated', {
      detail: { kid, activates_at: now.toISOString(), first: true },
    });
  }

  /** A new key pair, as stored: the private key sealed with `KEY_ENCRYPTION_KEY` when it is set. */
  async #newKey(now: Date, activatesAt: Date): Promise<{ kid: string; row: NewSigningKey }> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const published: JWK = { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' };
    const privateText = JSON.stringify(await exportJWK(privateKey));
    const key = this.options.keyEncryptionKey;
    return {
      kid,
      row: {
        kid,
        alg: SIGNING_ALGORITHM,
        publicJwk: published as object,
        privateJwk: key ? seal(privateText, key, kid) : privateText,
        encrypted: key !== undefined,
        createdAt: now,
        activatesAt,
      },
    };
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

  /**
   * The key that signs now: the newest whose activation has passed and whose successor has not activated. (Should
   * this instance hold no successor yet, the newest activated key: it is still published.)
   */
  current(): ActiveSigningKey {
    const now = Date.now();
    const activated = this.#signers.filter((signer) => signer.activatesAt <= now);
    const signer =
      activated.find((candidate) => candidate.retiredAt === undefined || candidate.retiredAt > now) ??
      activated[0];
    if (!signer) throw new Error('signing keys are not loaded');
    return { kid: signer.kid, alg: signer.alg, privateKey: signer.privateKey };
  }

  /** The public JWK Set served at `jwks_uri`: staged, signing and retired keys alike. */
  jwks(): { keys: JWK[] } {
    return { keys: this.#publicKeys };
  }

  /** The `Cache-Control: max-age` of `jwks_uri`, in seconds. */
  jwksMaxAge(): number {
    return this.options.signingKeys?.jwksMaxAge ?? DEFAULT_JWKS_MAX_AGE;
  }

  /** Seconds between {@link rotate} and the new key's first signature. */
  activationDelay(): number {
    return (
      this.options.signingKeys?.activationDelay ??
      defaultActivationDelay(
        this.jwksMaxAge(),
        this.#reloadIntervalMs() / 1000,
        this.options.signingKeys?.resourceServerRefetchCooldown,
      )
    );
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
   * before retirement stays verifiable until it expires) plus one reload interval (an instance that has not yet
   * read the successor may sign with the retired key until its next reload).
   */
  retention(): number {
    const { accessToken, idToken } = this.options.lifetimes;
    return Math.max(accessToken, idToken) * 1000 + this.#reloadIntervalMs();
  }

  /**
   * Makes a new key, published from now on. It signs after {@link activationDelay} (at once with `now`, and for the
   * first key); the keys before it sign until then and stay published for {@link retention} after. Refuses, before
   * changing anything, when a key that signs now or will cannot be opened with this process's
   * `KEY_ENCRYPTION_KEY`: a key sealed with another one would stop every instance at its next reload.
   */
  async rotate(options: { now?: boolean } = {}): Promise<RotatedSigningKey> {
    const now = new Date();
    const signing = await this.keys.findSigningAfter(now);
    for (const row of signing) this.#privateJwk(row);
    const first = signing.length === 0;
    const activatesAt = first || options.now ? now : new Date(now.getTime() + this.activationDelay() * 1000);
    const { kid, row } = await this.#newKey(now, activatesAt);
    await this.keys.stage(row);
    this.#logger.log(`new signing key ${kid}, signing from ${activatesAt.toISOString()}`);
    await this.events?.record('signing_key.rotated', {
      detail: {
        kid,
        activates_at: activatesAt.toISOString(),
        ...(first ? { first: true } : { retired: signing.map((row) => row.kid) }),
        ...(options.now && !first ? { immediate: true } : {}),
      },
    });
    await this.reload();
    return { kid, activatesAt };
  }

  /**
   * Takes a retired key out of `jwks_uri` at once (a compromised key): tokens it signed stop verifying wherever the
   * key set is fetched again. Refuses a key that signs now or will: rotate with `now` first.
   *
   * @throws KeyWithdrawalError when `kid` is not a retired key; nothing is changed.
   */
  async withdraw(kid: string): Promise<void> {
    const now = new Date();
    if (!(await this.keys.deleteRetired(kid, now))) {
      const known = (await this.keys.findAllNewestFirst()).some((row) => row.kid === kid);
      throw new KeyWithdrawalError(
        known
          ? `signing key ${kid} signs now or is staged to: rotate with --now first, then withdraw it`
          : `no signing key ${kid}`,
      );
    }
    this.#logger.warn(`signing key ${kid} withdrawn from jwks_uri`);
    await this.events?.record('signing_key.withdrawn', { detail: { kid } });
    await this.reload();
  }

  /** Every stored key, newest first, with when it signs and when it leaves `jwks_uri`. */
  async list(): Promise<SigningKeyInfo[]> {
    const rows = await this.keys.findAllNewestFirst();
    const now = Date.now();
    return rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
      status:
        row.retiredAt && row.retiredAt.getTime() <= now
          ? 'retired'
          : row.activatesAt.getTime() > now
            ? 'staged'
            : 'signing',
      createdAt: row.createdAt,
      activatesAt: row.activatesAt,
      encrypted: row.encrypted,
      ...(row.retiredAt
        ? { retiredAt: row.retiredAt, publishedUntil: new Date(row.retiredAt.getTime() + this.retention()) }
        : {}),
    }));
  }

  /**
   * Re-reads the keys: every key retired less than {@link retention} ago, or not retired, is published; those that
   * sign now or will are opened, to sign with when their time comes. Older ones are deleted. Concurrent calls share
   * one read.
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
    const now = Date.now();
    const opened = new Map(this.#signers.map((signer) => [signer.kid, signer.privateKey]));
    const signers: Signer[] = [];
    for (const row of rows) {
      if (row.retiredAt !== null && row.retiredAt.getTime() <= now) continue;
      signers.push({
        kid: row.kid,
        alg: row.alg,
        // Extractable, so that node:crypto signs with it in the calling thread (jwt-signer.ts); the process holds the
        // private JWK it is made from anyway.
        privateKey:
          opened.get(row.kid) ??
          ((await importJWK(this.#privateJwk(row), row.alg, { extractable: true })) as CryptoKey),
        activatesAt: row.activatesAt.getTime(),
        retiredAt: row.retiredAt?.getTime(),
      });
    }
    if (!signers.some((signer) => signer.activatesAt <= now)) throw new Error('no active signing key');
    this.#signers = signers.sort((a, b) => b.activatesAt - a.activatesAt);
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
