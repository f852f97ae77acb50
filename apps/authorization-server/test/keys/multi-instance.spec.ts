import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { decodeProtectedHeader } from 'jose';
import { runAdmin } from '../../src/admin/admin.js';
import {
  RESOURCE,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { basic, issueTokens, postForm } from '../introspection/introspection.helpers.js';

describe('key rotation across instances sharing one database', () => {
  let database: TestDatabase;
  let prompt: AuthorizationServerFixture;
  let slow: AuthorizationServerFixture;
  beforeAll(async () => {
    database = await startDatabase();
    // One instance re-reads the keys every second, the other practically never: it learns of the rotation
    // only from a kid it does not know.
    prompt = await startAuthorizationServer({ database, env: { SIGNING_KEY_RELOAD_INTERVAL: '1' } });
    // Instances of one deployment share the issuer.
    slow = await startAuthorizationServer({
      database,
      env: { ISSUER: prompt.issuer, SIGNING_KEY_RELOAD_INTERVAL: '3600' },
    });
  });
  afterAll(async () => {
    await slow?.close();
    await prompt?.close();
    await database?.stop();
  });

  it('share the key made at the first boot', async () => {
    const one = (await (await fetch(`${prompt.app.url}/jwks`)).json()) as { keys: { kid: string }[] };
    const two = (await (await fetch(`${slow.app.url}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(one.keys).toHaveLength(1);
    expect(two).toEqual(one);
  });

  it('pick up an emergency rotation made elsewhere: on their reload interval, or at once on a kid they do not know', async () => {
    const client = await prompt.createClient();
    const resourceServer: TestClient = await prompt.createClient({
      confidential: 'client_secret_basic',
      resourceServer: RESOURCE,
    });
    const user = await prompt.createUser();
    const before = decodeProtectedHeader((await issueTokens(slow, client, user)).access_token).kid;

    const out: string[] = [];
    expect(
      await runAdmin(
        ['keys', 'rotate', '--now', '--json'],
        {},
        { out: (t) => out.push(t), err: (t) => out.push(t) },
        { database: database.database },
      ),
    ).toBe(0);
    const newKid = (JSON.parse(out.join('')) as { kid: string }).kid;

    // The prompt instance signs with the new key within its interval.
    let signed = '';
    for (let attempt = 0; attempt < 30; attempt++) {
      signed = (await issueTokens(prompt, client, user)).access_token;
      if (decodeProtectedHeader(signed).kid === newKid) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(decodeProtectedHeader(signed).kid).toBe(newKid);

    // The slow one still signs with the old key, which stays published...
    expect(decodeProtectedHeader((await issueTokens(slow, client, user)).access_token).kid).toBe(before);
    // ...until a token under the new kid reaches it: it reloads, verifies it, and signs with the new key too.
    const introspected = await postForm(slow, 'introspect', { token: signed }, basic(resourceServer));
    expect(introspected.body).toMatchObject({ active: true });
    expect(decodeProtectedHeader((await issueTokens(slow, client, user)).access_token).kid).toBe(newKid);
    const published = (await (await fetch(`${slow.app.url}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(published.keys.map((key) => key.kid)).toEqual([newKid, before]);
  });
});

describe('instances booting together on an empty database', () => {
  let database: TestDatabase;
  const instances: AuthorizationServerFixture[] = [];
  beforeAll(async () => {
    database = await startDatabase();
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await database?.stop();
  });

  it('make one first key, which every instance publishes and signs with', async () => {
    // Each finds no key at boot; only one may make it (before: each made its own and published only that one).
    const first = await startAuthorizationServer({ database });
    instances.push(first);
    await first.prisma.signingKey.deleteMany();
    instances.push(
      ...(await Promise.all(
        Array.from({ length: 4 }, () =>
          startAuthorizationServer({
            database,
            env: { ISSUER: first.issuer, SIGNING_KEY_RELOAD_INTERVAL: '3600' },
          }),
        ),
      )),
    );
    expect(await first.prisma.signingKey.count()).toBe(1);
    const sets = await Promise.all(
      instances.slice(1).map(async (instance) => (await fetch(`${instance.app.url}/jwks`)).json()),
    );
    expect(new Set(sets.map((set) => JSON.stringify(set))).size).toBe(1);
  });
});
