// An answer kept so that the one who asked can be given it again, and nobody else can read it: sealed (AES-256-GCM)
// with a key derived (HKDF-SHA-256, RFC 5869) from a secret the asker holds and the server stores only hashed (a
// refresh token, an authorization code, a pending authorization's handle). Whoever reads the database cannot open
// it; a presenter of the secret opens it only with the same additional data (what the repeated request must match).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function key(info: string, secret: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), salt, info, 32));
}

/**
 * Seals `value` (as JSON) under a key derived from `secret` for `info` (what it is for: a distinct label per use, so
 * that a value sealed for one use never opens for another), bound to `additionalData`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc5869
 */
export function seal(info: string, secret: string, additionalData: string, value: unknown): string {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key(info, secret, salt), iv);
  cipher.setAAD(Buffer.from(additionalData, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64url');
}

/**
 * The value {@link seal} sealed, when `secret`, `info` and `additionalData` are those it was sealed with; undefined
 * otherwise (another secret or additional data, a damaged value).
 */
export function unseal(info: string, secret: string, additionalData: string, sealed: string): unknown {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= SALT_BYTES + IV_BYTES + TAG_BYTES) return undefined;
  const salt = bytes.subarray(0, SALT_BYTES);
  const iv = bytes.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
  const tag = bytes.subarray(SALT_BYTES + IV_BYTES, SALT_BYTES + IV_BYTES + TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key(info, secret, salt), iv);
    decipher.setAAD(Buffer.from(additionalData, 'utf8'));
    decipher.setAuthTag(tag);
    const body = Buffer.concat([
      decipher.update(bytes.subarray(SALT_BYTES + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
