import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new client secret: 256 random bits, base64url. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The stored form of a client secret. Secrets are 256-bit random values, so one SHA-256 is enough (a slow
 * password hash protects low-entropy secrets, which these are not), and verification stays cheap on every token
 * request.
 */
export function hashClientSecret(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('base64url')}`;
}

const STORED_PREFIX = 'sha256:';
const DIGEST_BYTES = 32;

/**
 * Constant-time check of a presented secret against its stored hash (RFC 6819 5.1.4.2.3): the presented secret's
 * SHA-256 and the stored one are both 32 bytes, compared with `timingSafeEqual`, so the time says nothing of where
 * they differ nor of the secret's length; a stored value that is not a SHA-256 matches nothing.
 */
export function verifyClientSecret(secret: string, stored: string | null | undefined): boolean {
  if (!stored?.startsWith(STORED_PREFIX)) return false;
  const expected = Buffer.from(stored.slice(STORED_PREFIX.length), 'base64url');
  if (expected.length !== DIGEST_BYTES) return false;
  return timingSafeEqual(hash('sha256', secret, 'buffer'), expected);
}
