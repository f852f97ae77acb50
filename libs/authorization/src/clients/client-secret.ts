import { createHash, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@portcullis/protocol';

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

/** Constant-time check of a presented secret against its stored hash. */
export function verifyClientSecret(secret: string, stored: string | null | undefined): boolean {
  if (!stored?.startsWith('sha256:')) return false;
  return constantTimeEqual(hashClientSecret(secret), stored);
}
