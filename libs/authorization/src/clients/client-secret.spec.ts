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

  it('match nothing when the stored value is not a whole SHA-256', () => {
    const secret = generateClientSecret();
    const stored = hashClientSecret(secret);
    expect(verifyClientSecret(secret, stored.slice(0, -1))).toBe(false);
    expect(verifyClientSecret(secret, `${stored}AA`)).toBe(false);
    expect(verifyClientSecret(secret, 'sha256:')).toBe(false);
    expect(verifyClientSecret(secret, stored.replace('sha256:', 'SHA256:'))).toBe(false);
    expect(verifyClientSecret('', hashClientSecret(''))).toBe(true);
    expect(verifyClientSecret(secret.toUpperCase(), stored)).toBe(false);
  });
});
