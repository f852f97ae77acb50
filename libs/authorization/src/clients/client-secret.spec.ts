import { describe, expect, it } from '@jest/globals';
import { generateClientSecret, hashClientSecret, verifyClientSecret } from './client-secret.js';

describe('client secrets', () => {
  it('are 256-bit random and verify only against their own hash', () => {
    const secret = generateClientSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = hashClientSecret(secret);
    expect(stored).not.toContain(secret);
    expect(verifyClientSecret(secret, stored)).toBe(true);
    expect(verifyClientSecret(generateClientSecret(), stored)).toBe(false);
    expect(verifyClientSecret(secret, null)).toBe(false);
    expect(verifyClientSecret(secret, secret)).toBe(false);
  });
});
