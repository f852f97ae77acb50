/**
 * A token store in one encrypted file.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Refresh Tokens" (confidential storage): the file (mode 0600, in a 0700 directory) holds the
 *   store sealed with AES-256-GCM (`token-encryption.ts`); tokens and secrets are never written in clear.
 * - MCP "Token Theft" (rotation for public clients): a rotated refresh token is persisted before it is used.
 *   `saveTokens` resolves only after the new file has replaced the old one (write to a temporary file, then rename,
 *   which is atomic on POSIX file systems), so a crash leaves either the old or the new store, never half of one.
 * - Writes are serialised, within the process and across processes (each holds the file lock), so concurrent saves
 *   never lose each other's changes.
 * - RFC 9700 Section 4.14.2 (refresh token reuse revokes the family): processes sharing the file take turns with
 *   `exclusive`, a lock beside the file (`<file>.lock`, taken with an atomic `mkdir`, refreshed while held and taken
 *   over once stale, so a killed process does not block the others), so a refresh token is presented by one of them.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import { PortcullisError } from '../errors/portcullis-error.js';
import { loadOrCreateKey, open, seal } from './token-encryption.js';
import {
  matchesKey,
  newestFirst,
  sameKey,
  type StoredClient,
  type StoredServerMetadata,
  type StoredTokenSet,
  type TokenSetKey,
  type TokenStore,
} from './token-store.js';

interface StoreDocument {
  tokens: StoredTokenSet[];
  clients: StoredClient[];
  /** Authorization server metadata, per issuer (absent from stores written before it was kept). */
  servers: StoredServerMetadata[];
}

/**
 * Options of {@link FileTokenStore}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.4
 */
export interface FileTokenStoreOptions {
  /** The store file. */
  readonly path: string;
  /** The key file used when the environment has no key; default `<directory of path>/token-store.key`. */
  readonly keyFile?: string;
  /** Where to read `PORTCULLIS_TOKEN_KEY` from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long `exclusive` waits for another process's turn before it fails, in milliseconds; default 30,000. */
  readonly lockTimeoutMs?: number;
}

/** A lock not refreshed for this long belongs to a process that died, and is taken over. */
const STALE_LOCK_MS = 10_000;
const LOCK_POLL_MS = 50;

/**
 * A {@link TokenStore} in an AES-256-GCM encrypted file, for a command line that must remember tokens between runs.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.4
 * @see https://csrc.nist.gov/pubs/sp/800/38/d/final
 */
export class FileTokenStore implements TokenStore {
  readonly path: string;
  readonly keyFile: string;
  readonly #env: Readonly<Record<string, string | undefined>>;
  #key: Promise<Buffer> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #lockTimeoutMs: number;
  #turns: Promise<unknown> = Promise.resolve();
  /** Whether this process holds the file lock for a turn of {@link exclusive} right now. */
  #holding = false;

  constructor(options: FileTokenStoreOptions) {
    this.path = options.path;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.keyFile = options.keyFile ?? join(dirname(options.path), 'token-store.key');
    this.#env = options.env ?? process.env;
  }

  async findTokens(resource: string): Promise<readonly StoredTokenSet[]> {
    const { tokens } = await this.#read();
    return tokens.filter((entry) => entry.resource === resource).sort(newestFirst);
  }

  async listTokens(): Promise<readonly StoredTokenSet[]> {
    return (await this.#read()).tokens.sort(newestFirst);
  }

  saveTokens(tokens: StoredTokenSet): Promise<void> {
    return this.#update((document) => {
      document.tokens = [...document.tokens.filter((entry) => !sameKey(entry, tokens)), { ...tokens }];
    });
  }

  async deleteTokens(filter: Partial<TokenSetKey>): Promise<number> {
    let deleted = 0;
    await this.#update((document) => {
      const kept = document.tokens.filter((entry) => !matchesKey(entry, filter));
      deleted = document.tokens.length - kept.length;
      document.tokens = kept;
    });
    return deleted;
  }

  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return (await this.#read()).clients.find((client) => client.issuer === issuer);
  }

  saveClient(client: StoredClient): Promise<void> {
    return this.#update((document) => {
      document.clients = [
        ...document.clients.filter((entry) => entry.issuer !== client.issuer),
        { ...client },
      ];
    });
  }

  async deleteClient(issuer: string): Promise<void> {
    await this.#update((document) => {
      document.clients = document.clients.filter((entry) => entry.issuer !== issuer);
    });
  }

  async getServerMetadata(issuer: string): Promise<StoredServerMetadata | undefined> {
    return (await this.#read()).servers.find((entry) => entry.issuer === issuer);
  }

  saveServerMetadata(metadata: StoredServerMetadata): Promise<void> {
    return this.#update((document) => {
      document.servers = [
        ...document.servers.filter((entry) => entry.issuer !== metadata.issuer),
        { ...metadata },
      ];
    });
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // One turn at a time in this process too: the lock is the process's, not the caller's.
    const turn = this.#turns
      .catch(() => undefined)
      .then(() =>
        this.#withFileLock(async () => {
          this.#holding = true;
          try {
            return await fn();
          } finally {
            this.#holding = false;
          }
        }),
      );
    this.#turns = turn;
    return turn;
  }

  async #withFileLock<T>(fn: () => Promise<T>): Promise<T> {
    let release: () => Promise<void>;
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      release = await lockfile.lock(this.path, {
        realpath: false,
        stale: STALE_LOCK_MS,
        update: STALE_LOCK_MS / 2,
        retries: {
          retries: Math.ceil(this.#lockTimeoutMs / LOCK_POLL_MS),
          factor: 1,
          minTimeout: LOCK_POLL_MS,
          maxTimeout: LOCK_POLL_MS,
        },
        // A lock taken over while held (this process stalled past STALE_LOCK_MS) costs at worst a refresh that the
        // server counts as reuse; never worth ending the process over.
        onCompromised: () => undefined,
      });
    } catch (cause) {
      throw new PortcullisError(
        'token_store_failed',
        `Cannot lock the token store ${this.path} (another process holds ${this.path}.lock).`,
        { file: this.path },
        { cause },
      );
    }
    try {
      return await fn();
    } finally {
      await release().catch(() => undefined);
    }
  }

  #loadKey(): Promise<Buffer> {
    this.#key ??= loadOrCreateKey(this.keyFile, this.#env);
    // A failed key load is retried on the next call rather than remembered.
    this.#key.catch(() => {
      this.#key = undefined;
    });
    return this.#key;
  }

  async #read(): Promise<StoreDocument> {
    // Reads wait for queued writes, so a read after a save sees it.
    await this.#queue.catch(() => undefined);
    return this.#readFile();
  }

  async #readFile(): Promise<StoreDocument> {
    let raw: string;
    try {
      raw = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { tokens: [], clients: [], servers: [] };
      throw new PortcullisError(
        'token_store_failed',
        `Cannot read the token store ${this.path}.`,
        { file: this.path },
        { cause: error },
      );
    }
    const key = await this.#loadKey();
    let sealed: unknown;
    try {
      sealed = JSON.parse(raw);
    } catch {
      sealed = undefined;
    }
    const document = JSON.parse(open(key, sealed, this.path)) as Partial<StoreDocument>;
    return {
      tokens: document.tokens ?? [],
      clients: document.clients ?? [],
      servers: document.servers ?? [],
    };
  }

  #update(change: (document: StoreDocument) => void): Promise<void> {
    const queued = () => {
      const run = this.#queue
        .catch(() => undefined)
        .then(async () => {
          const document = await this.#readFile();
          change(document);
          await this.#write(document);
        });
      this.#queue = run;
      return run;
    };
    // Another process must not read before this write and rename after it (its stale copy would put back a rotated-out
    // refresh token): every write is made holding the file lock, as a turn of its own unless a turn of `exclusive`
    // in this process holds it already (a refresh saving what it got).
    return this.#holding ? queued() : this.exclusive(queued);
  }

  async #write(document: StoreDocument): Promise<void> {
    const key = await this.#loadKey();
    const directory = dirname(this.path);
    const temporary = join(directory, `.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      await writeFile(temporary, `${JSON.stringify(seal(key, JSON.stringify(document)))}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      await chmod(temporary, 0o600);
      await rename(temporary, this.path);
    } catch (cause) {
      await rm(temporary, { force: true });
      throw new PortcullisError(
        'token_store_failed',
        `Cannot write the token store ${this.path}.`,
        { file: this.path },
        { cause },
      );
    }
  }
}
