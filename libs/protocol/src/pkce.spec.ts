import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  PKCE_METHOD_S256,
  codeChallengeS256,
  generateCodeVerifier,
  isCodeVerifier,
  isS256CodeChallenge,
  verifyCodeChallenge,
} from './pkce.js';

// RFC 7636 Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE', () => {
  it('computes the RFC 7636 Appendix B challenge', () => {
    expect(codeChallengeS256(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
  });

  it('generates 43-character verifiers from 32 random octets, different every time', () => {
    const verifiers = Array.from({ length: 200 }, generateCodeVerifier);
    for (const verifier of verifiers) {
      expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/u);
      expect(Buffer.from(verifier, 'base64url')).toHaveLength(32);
    }
    expect(new Set(verifiers).size).toBe(verifiers.length);
  });

  it('accepts the verifier of a challenge with S256', () => {
    expect(verifyCodeChallenge(RFC_VERIFIER, RFC_CHALLENGE, 'S256')).toBe(true);
    expect(PKCE_METHOD_S256).toBe('S256');
  });

  it.each<[string, string, string, string]>([
    ['the plain method, even with a matching value', RFC_VERIFIER, RFC_VERIFIER, 'plain'],
    ['the plain method with the S256 challenge', RFC_VERIFIER, RFC_CHALLENGE, 'plain'],
    ['a method name with whitespace', RFC_VERIFIER, RFC_CHALLENGE, 'S256 '],
    ['a lowercase method name', RFC_VERIFIER, RFC_CHALLENGE, 's256'],
    ['an empty method', RFC_VERIFIER, RFC_CHALLENGE, ''],
    ['another verifier', `${RFC_VERIFIER.slice(0, -1)}l`, RFC_CHALLENGE, 'S256'],
    ['a challenge with padding', RFC_VERIFIER, `${RFC_CHALLENGE}=`, 'S256'],
    ['a truncated challenge', RFC_VERIFIER, RFC_CHALLENGE.slice(0, -1), 'S256'],
    ['an empty challenge', RFC_VERIFIER, '', 'S256'],
    ['a challenge in another case', RFC_VERIFIER, RFC_CHALLENGE.toLowerCase(), 'S256'],
    ['a multi-byte challenge of the same length', RFC_VERIFIER, '\u00e9'.repeat(43), 'S256'],
    ['a 42-character verifier', 'a'.repeat(42), codeChallengeS256('a'.repeat(43)), 'S256'],
    ['a 129-character verifier', 'a'.repeat(129), codeChallengeS256('a'.repeat(128)), 'S256'],
    ['a verifier with +', `${'a'.repeat(42)}+`, codeChallengeS256('a'.repeat(43)), 'S256'],
    ['a verifier with /', `${'a'.repeat(42)}/`, codeChallengeS256('a'.repeat(43)), 'S256'],
    ['a verifier with =', `${'a'.repeat(42)}=`, codeChallengeS256('a'.repeat(43)), 'S256'],
    ['a verifier with a space', `${'a'.repeat(42)} `, codeChallengeS256('a'.repeat(43)), 'S256'],
    ['a verifier with non-ASCII', `${'a'.repeat(42)}\u00e9`, codeChallengeS256('a'.repeat(43)), 'S256'],
  ])('refuses %s', (_name, verifier, challenge, method) => {
    expect(verifyCodeChallenge(verifier, challenge, method)).toBe(false);
  });

  it('refuses values that are not strings without throwing', () => {
    expect(verifyCodeChallenge(undefined as unknown as string, RFC_CHALLENGE, 'S256')).toBe(false);
    expect(verifyCodeChallenge(RFC_VERIFIER, undefined as unknown as string, 'S256')).toBe(false);
  });

  it('accepts verifiers of exactly 43 and 128 unreserved characters', () => {
    for (const verifier of ['a'.repeat(43), `${'-._~'.repeat(32)}`]) {
      expect(isCodeVerifier(verifier)).toBe(true);
      expect(verifyCodeChallenge(verifier, codeChallengeS256(verifier), 'S256')).toBe(true);
    }
  });

  it('will not compute a challenge for an invalid verifier', () => {
    expect(() => codeChallengeS256('short')).toThrow(TypeError);
    expect(() => codeChallengeS256(`${'a'.repeat(42)}\u00e9`)).toThrow(TypeError);
  });

  it.each<[string, boolean]>([
    [RFC_CHALLENGE, true],
    [`${RFC_CHALLENGE}=`, false],
    [RFC_CHALLENGE.slice(1), false],
    [`${RFC_CHALLENGE.slice(1)}+`, false],
    [`${RFC_CHALLENGE.slice(1)}.`, false],
  ])('says %j has the shape of an S256 challenge: %s', (value, expected) => {
    expect(isS256CodeChallenge(value)).toBe(expected);
  });

  const verifier = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'.split('')),
    minLength: 43,
    maxLength: 128,
  });

  it('verifies the challenge of every valid verifier, and of no other verifier', () => {
    fc.assert(
      fc.property(verifier, verifier, (v, other) => {
        const challenge = codeChallengeS256(v);
        expect(isS256CodeChallenge(challenge)).toBe(true);
        expect(verifyCodeChallenge(v, challenge, 'S256')).toBe(true);
        expect(verifyCodeChallenge(other, challenge, 'S256')).toBe(v === other);
      }),
      { numRuns: 500 },
    );
  });
});
