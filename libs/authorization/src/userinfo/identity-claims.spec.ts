import { describe, expect, it } from '@jest/globals';
import type { User } from '@portcullis/persistence';
import { identityClaims } from './identity-claims.js';

const user = (extra: Partial<User> = {}): User => ({
  id: '7d2b3c1e-0000-4000-8000-000000000001',
  username: 'alice',
  passwordHash: '$argon2id$...',
  name: null,
  email: null,
  emailVerified: false,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...extra,
});

describe('identityClaims', () => {
  it('grants nothing for openid alone, nor for a resource scope', () => {
    expect(
      identityClaims(user({ name: 'Alice', email: 'alice@example.com' }), ['openid', 'notes:read']),
    ).toEqual({});
  });

  it('grants the username and the name where there is one for profile', () => {
    expect(identityClaims(user(), ['openid', 'profile'])).toEqual({ preferred_username: 'alice' });
    expect(identityClaims(user({ name: 'Alice Liddell' }), ['profile'])).toEqual({
      name: 'Alice Liddell',
      preferred_username: 'alice',
    });
  });

  it('grants the address and whether it was verified for email, and nothing for a user without one', () => {
    expect(identityClaims(user({ email: 'alice@example.com', emailVerified: true }), ['email'])).toEqual({
      email: 'alice@example.com',
      email_verified: true,
    });
    expect(identityClaims(user({ emailVerified: true }), ['email'])).toEqual({});
  });
});
