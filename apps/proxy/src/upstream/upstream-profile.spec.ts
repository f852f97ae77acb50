import { describe, expect, it } from '@jest/globals';
import { firstString, statedProfile } from './upstream-profile.js';

describe("the upstream's statements about the person", () => {
  it('take email_verified from the statement whose address is kept, never from the other', () => {
    // UserInfo states a new, unverified address; the ID token an older, verified one.
    const userinfo = { sub: 'dana', email: 'dana@new.example' };
    const idToken = { sub: 'dana', email: 'dana@old.example', email_verified: true };
    expect(statedProfile([userinfo, idToken])).toEqual({ email: 'dana@new.example', emailVerified: false });
    expect(statedProfile([{ ...userinfo, email_verified: 'true' }, idToken])).toEqual({
      email: 'dana@new.example',
      emailVerified: false,
    });
    expect(statedProfile([{ ...userinfo, email_verified: true }, { sub: 'dana' }])).toEqual({
      email: 'dana@new.example',
      emailVerified: true,
    });
  });

  it('fall back to the ID token for an address UserInfo does not state, with its own email_verified', () => {
    const userinfo = { sub: 'dana', name: 'Dana', email_verified: false };
    const idToken = { sub: 'dana', email: 'dana@upstream.example', email_verified: true };
    expect(statedProfile([userinfo, idToken])).toEqual({
      name: 'Dana',
      email: 'dana@upstream.example',
      emailVerified: true,
    });
    // A verification stated without an address says nothing.
    expect(statedProfile([{ email_verified: true }])).toEqual({});
  });

  it('keep no address that is not plain text, rather than the other statement’s', () => {
    const userinfo = { email: 'dana@upstream.example\u0000' };
    const idToken = { email: 'other@upstream.example', email_verified: true };
    expect(statedProfile([userinfo, idToken])).toEqual({});
    expect(statedProfile([{ name: 'x'.repeat(321) }])).toEqual({});
  });

  it('name the person by the first of preferred_username, email and name that either statement gives', () => {
    expect(
      firstString(
        [{ email: 'dana@new.example' }, { preferred_username: 'dana' }],
        ['preferred_username', 'email'],
      ),
    ).toBe('dana');
    expect(
      firstString([{ preferred_username: '' }, { preferred_username: 'dana' }], ['preferred_username']),
    ).toBe('dana');
    expect(firstString([{}, {}], ['name'])).toBeUndefined();
  });
});
