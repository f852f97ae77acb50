import { describe, expect, it } from '@jest/globals';
import { LATEST_REVISION, REVISIONS } from '@portcullis/revisions';
import { envSchema } from './env.schema.js';

describe("the proxy's configuration", () => {
  it('defaults to the local authorization server as the upstream in development', () => {
    const env = envSchema.parse({});
    expect(env.ISSUER).toBe('http://localhost:4200');
    expect(env.UPSTREAM_ISSUER).toBeUndefined();
    expect(env.UPSTREAM_SCOPES).toEqual(['openid']);
    expect(env.UPSTREAM_TIMEOUT_MS).toBe(10_000);
  });

  it('requires the upstream, the cookie secret and the key encryption key in production', () => {
    const result = envSchema.safeParse({ NODE_ENV: 'production' });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'UPSTREAM_ISSUER',
        'UPSTREAM_CLIENT_ID',
        'COOKIE_SECRET',
        'KEY_ENCRYPTION_KEY',
      ]),
    );
  });

  it('refuses a plain-http upstream that is not on loopback, and malformed scopes', () => {
    expect(envSchema.safeParse({ UPSTREAM_ISSUER: 'http://idp.example.com' }).success).toBe(false);
    // An issuer with a terminating slash is someone else's to choose (Auth0's): kept as it is, never doubled.
    expect(envSchema.parse({ UPSTREAM_ISSUER: 'https://tenant.auth0.example/' }).UPSTREAM_ISSUER).toBe(
      'https://tenant.auth0.example/',
    );
    expect(envSchema.safeParse({ UPSTREAM_ISSUER: 'https://idp.example.com//' }).success).toBe(false);
    expect(envSchema.safeParse({ UPSTREAM_ISSUER: 'https://idp.example.com/?a=1' }).success).toBe(false);
    expect(envSchema.safeParse({ UPSTREAM_SCOPES: 'openid "email"' }).success).toBe(false);
    expect(envSchema.parse({ UPSTREAM_SCOPES: 'openid  email' }).UPSTREAM_SCOPES).toEqual([
      'openid',
      'email',
    ]);
  });

  it.each(REVISIONS)('accepts SPEC_REVISION=%s', (revision) => {
    expect(envSchema.parse({ SPEC_REVISION: revision }).SPEC_REVISION).toBe(revision);
  });

  it('defaults SPEC_REVISION to the latest revision and refuses an unknown one, naming the known ones', () => {
    expect(envSchema.parse({}).SPEC_REVISION).toBe(LATEST_REVISION);
    const result = envSchema.safeParse({ SPEC_REVISION: '2025-03-26' });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([
      expect.objectContaining({ path: ['SPEC_REVISION'], message: `must be one of ${REVISIONS.join(', ')}` }),
    ]);
  });

  it('accepts loopback client ID metadata documents only when the proxy itself is on loopback', () => {
    expect(envSchema.safeParse({ CIMD_ALLOW_LOOPBACK: 'true' }).success).toBe(true);
    expect(
      envSchema.safeParse({ CIMD_ALLOW_LOOPBACK: 'true', ISSUER: 'https://proxy.example.com' }).success,
    ).toBe(false);
  });
});
