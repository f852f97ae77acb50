/**
 * Reading the client's private key for `private_key_jwt` (RFC 7523 2.2): `--private-key <file>` (PEM PKCS#8 or a
 * private JWK) and `--key-id`. A file that cannot be read or used is one line naming the file; the key itself is
 * never printed.
 */
import { readFile } from 'node:fs/promises';
import {
  ClientAssertionKeyError,
  importClientAssertionKey,
  type ClientAssertionKey,
} from '@portcullis/client';
import type { GlobalOptions } from './options.js';

/** A private key file that cannot be used: printed as one line, exit code 1. */
export class ClientKeyFileError extends Error {
  override readonly name = 'ClientKeyFileError';
}

/**
 * The key of `--private-key`, read and imported.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.2
 */
export async function readClientKey(file: string, keyId: string | undefined): Promise<ClientAssertionKey> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ClientKeyFileError(
      `cannot read the private key file ${file}${code === undefined ? '' : ` (${code})`}`,
    );
  }
  try {
    return await importClientAssertionKey(text, keyId === undefined ? {} : { keyId });
  } catch (error) {
    const reason = error instanceof ClientAssertionKeyError ? error.message : 'not a usable private key';
    throw new ClientKeyFileError(`the private key file ${file} cannot be used: ${reason}`);
  }
}

/** The options with the key of `--private-key` read, when given. */
export async function withClientKey(options: GlobalOptions): Promise<GlobalOptions> {
  if (options.privateKeyFile === undefined) return options;
  return { ...options, clientKey: await readClientKey(options.privateKeyFile, options.keyId) };
}
