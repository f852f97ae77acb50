import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { runAdmin } from '../../src/admin/admin.js';
import { RESOURCE, startAuthorizationServer, type AuthorizationServerFixture } from '../support/authorization-server.fixture.js';
import { issueTokens } from '../introspection/introspection.helpers.js';

/** Short lifetimes so that a retired key's whole publication window fits in a test. */
const ENV = { ACCESS_TOKEN_TTL: '2', ID_TOKEN_TTL: '2', SIGNING_KEY_RELOAD_INTERVAL: '1' };

describe('key rotation while tokens are in flight', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: ENV });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** The JWK Set as a resource server would fetch it now (no cache). */
  async function jwks(): Promise<JSONWebKeySet> {
    return (await (await fetch(`${as.app.url}/jwks`)).json()) as JSONWebKeySet;
  }
  const kids = async () => (await jwks()).keys.map((key) => key.kid);
  async function verifies(token: string): Promise<boolean> {
    try {
      await jwtVerify(token, createLocalJWKSet(await jwks()), { issuer: as.issuer, audience: RESOURCE, typ: 'at+jwt' });
      return true;
    } catch {
      return false;
    }
  }
  async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  async function rotate(): Promise<string> {
    const out: string[] = [];
    const code = await runAdmin(['keys', 'rotate', '--json'], ENV, { out: (t) => out.push(t), err: (t) => out.push(t) }, {
      database: as.app.database.database,
    });
    expect(code).toBe(0);
    return (JSON.parse(out.join('')) as { kid: string }).kid;
  }

  it('keeps every token verifiable against jwks_uri until it expires; new tokens carry the new kid; then the old kid leaves', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const [oldKid] = await kids();
    const inFlight = await Promise.all([issueTokens(as, client, user), issueTokens(as, client, user)]);
    for (const { access_token } of inFlight) expect(decodeProtectedHeader(access_token).kid).toBe(oldKid);

    const rotatedAt = Date.now();
    const newKid = await rotate();
    expect(newKid).not.toBe(oldKid);
    // The running server picks the rotation up from the database within SIGNING_KEY_RELOAD_INTERVAL.
    await until(async () => (await kids()).includes(newKid), 3000);
    expect(await kids()).toEqual([newKid, oldKid]);

    const after = await issueTokens(as, client, user);
    expect(decodeProtectedHeader(after.access_token).kid).toBe(newKid);

    // Every in-flight token verifies for as long as it lives.
    const expiries = inFlight.map(({ access_token }) => decodeJwt(access_token).exp!);
    while (Date.now() / 1000 < Math.min(...expiries) - 0.2) {
      for (const { access_token } of inFlight) expect(await verifies(access_token)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // Retention is the longest token lifetime plus one reload interval; then the old kid is gone.
    await until(async () => !(await kids()).includes(oldKid), 8000);
    expect(Date.now() - rotatedAt).toBeGreaterThan(3000);
    expect(await kids()).toEqual([newKid]);
    expect(await as.prisma.signingKey.count()).toBe(1);
    const fresh = await issueTokens(as, client, user);
    expect(await verifies(fresh.access_token)).toBe(true);
  });
});
