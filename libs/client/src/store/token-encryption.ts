/**
 * Encryption of the token store file.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Refresh Tokens": refresh tokens are kept confidential in storage: the whole store is sealed with
 *   AES-256-GCM (NIST SP 800-38D) under a 256-bit key, a fresh 96-bit IV per write, and the format name as
 *   additional authenticated data, so a file from another format or a tampered file fails to open.
 * - The key comes from the environment (`PORTCULLIS_TOKEN_KEY`: 32 bytes as 64 hex digits or base64/base64url),
 *   else from a key file created once with 32 random bytes and mode 0600 in a 0700 directory.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PortcullisError } from '../errors/portcullis-error.js';

/** The environment variable that holds the token store key. */
export const TOKEN_KEY_ENV = 'PORTCULLIS_TOKEN_KEY';

const FORMAT = 'portcullis-token-store';
const VERSION = 1;
const KEY_BYTES = 32;
const IV_BYTES = 12;

/**
 * A sealed store file, as written to disk.
 *
 * @see https://csrc.nist.gov/pubs/sp/800/38/d/final
 */
export interface SealedDocument {
  readonly format: typeof FORMAT;
  readonly version: typeof VERSION;
  readonly alg: 'A256GCM';
  readonly iv: string;
  readonly tag: string;
  readonly ciphertext: string;
}

/**
 * Parses a 256-bit key written as 64 hex digits or as base64/base64url; throws `token_store_failed` otherwise.
 *
 * @see https://www.rfc-editor.org/rfc/rfc4648#section-5
 */
export function parseKey(value: string, source: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
      ? Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : undefined;
  if (key === undefined || key.length !== KEY_BYTES) {
    throw new PortcullisError(
      'token_store_failed',
      `${source} must hold a 256-bit key: 64 hex digits or 32 bytes in base64.`,
      { source },
    );
  }
  return key;
}

/**
 * The store key: from `env[PORTCULLIS_TOKEN_KEY]` when set, else read from `keyFile`, creating it (32 random
 * bytes, base64, mode 0600) when it does not exist.
 *
 * @see https://csrc.nist.gov/pubs/sp/800/38/d/final
 */
export async function loadOrCreateKey(
  keyFile: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Buffer> {
  const fromEnv = env[TOKEN_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return parseKey(fromEnv, TOKEN_KEY_ENV);
  try {
    return parseKey(await readFile(keyFile, 'utf8'), keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw storeError(`Cannot read the key file ${keyFile}.`, error);
  }
  await mkdir(dirname(keyFile), { recursive: true, mode: 0o700 });
  try {
    // `wx`: two processes creating the key at once must not overwrite each other's key.
    await writeFile(keyFile, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(keyFile, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw storeError(`Cannot create the key file ${keyFile}.`, error);
  }
  return parseKey(await readFile(keyFile, 'utf8'), keyFile);
}

/**
 * Seals a JSON-serialisable document with AES-256-GCM.
 *
 * @see https://csrc.nist.gov/pubs/sp/800/38/d/final
 */
export function seal(key: Buffer, plaintext: string): SealedDocument {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${FORMAT}/${VERSION}`));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    format: FORMAT,
    version: VERSION,
    alg: 'A256GCM',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/**
 * Opens a sealed document; throws `token_store_failed` when the file is not one or the key does not open it.
 *
 * @see https://csrc.nist.gov/pubs/sp/800/38/d/final
 */
export function open(key: Buffer, sealed: unknown, file: string): string {
  const document = sealed as Partial<SealedDocument> | null;
  if (
    typeof document !== 'object' ||
    document === null ||
    document.format !== FORMAT ||
    document.version !== VERSION ||
    typeof document.iv !== 'string' ||
    typeof document.tag !== 'string' ||
    typeof document.ciphertext !== 'string'
  ) {
    throw new PortcullisError('token_store_failed', `${file} is not a Portcullis token store.`, { file });
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(document.iv, 'base64'));
    decipher.setAAD(Buffer.from(`${FORMAT}/${VERSION}`));
    decipher.setAuthTag(Buffer.from(document.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(document.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch (cause) {
    throw new PortcullisError(
      'token_store_failed',
      `Cannot decrypt ${file}: the key is not the one it was written with (check ${TOKEN_KEY_ENV} or the key file), or the file was altered.`,
      { file },
      { cause },
    );
  }
}

function storeError(message: string, cause: unknown): PortcullisError {
  return new PortcullisError('token_store_failed', message, {}, { cause });
}
