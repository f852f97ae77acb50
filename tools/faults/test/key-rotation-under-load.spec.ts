// A signing key rotation under load: two authorization server processes behind a balancer and the protected server
// as a process, 20 clients calling a tool and refreshing mid-flight (half of them every few calls, half only as their
// token nears its expiry, so tokens of the old key stay in use past the activation) while `portcullis-admin keys
// rotate` runs. The rotated key is published by both instances at once and signs only from its activation time,
// on both, without coordination; the old key stays published until its tokens have expired. Not one good token is
// refused (no 401, no 503) across the rotation, the activation and the old key's retirement, while forged tokens
// (kid 123; an attacker's key in a jwk header) are 401 invalid_token throughout, never 503. The timings are
// shortened by configuration: the key set is cached 2 s, refetched at most every 2 s (which the authorization
// server is told, RESOURCE_SERVER_REFETCH_COOLDOWN, so that its activation delay may be short), and a rotated key
// signs 15 s after `keys rotate`.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createSigningKey,
  freePort,
  HeadlessUserAgent,
  postgresServerAvailable,
  PROTECTED_SERVER_MAIN,
  refresh,
  signIn,
  startAuthorizationServers,
  startDatabase,
  startInstance,
  waitFor,
  type AuthorizationServerCluster,
  type Instance,
  type TestClient,
  type TestDatabase,
} from '@portcullis/testing';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { callTool } from '../src/mcp.js';

const ADMIN = fileURLToPath(
  new URL('../../../apps/authorization-server/dist/admin/main.js', import.meta.url),
);
// Long enough that the admin command's own start (a Nest context and Prisma, seconds on a loaded CI machine) ends
// well before the activation.
const ACTIVATION_DELAY_SECONDS = 15;
/** The protected server's JWKS_REFETCH_COOLDOWN, and what the authorization servers are told it is. */
const REFETCH_COOLDOWN_SECONDS = '2';
const CLIENTS = 20;

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

function admin(cluster: AuthorizationServerCluster, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ADMIN, ...args], {
      env: { PATH: process.env['PATH'], NODE_ENV: 'test', LOG_LEVEL: 'warn', ...cluster.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, out }));
  });
}

async function publishedKids(instance: Instance): Promise<string[]> {
  const jwks = (await (await fetch(`${instance.url}/jwks`)).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((key) => key.kid);
}

const kidOf = (token: string) => decodeProtectedHeader(token).kid as string;

interface Call {
  readonly at: number;
  readonly kid: string;
  readonly status: number;
  readonly toolError: boolean;
}

describeWithPostgres('a signing key rotation with 20 clients mid-flight', () => {
  let cluster: AuthorizationServerCluster;
  let psDatabase: TestDatabase;
  let ps: Instance;
  let resource: string;
  beforeAll(async () => {
    const psPort = await freePort();
    resource = `http://127.0.0.1:${psPort}/mcp`;
    cluster = await startAuthorizationServers(2, {
      RESOURCES: JSON.stringify([{ uri: resource, scopes_supported: ['notes:read', 'notes:write'] }]),
      SIGNING_KEY_RELOAD_INTERVAL: '1',
      JWKS_MAX_AGE: '2',
      RESOURCE_SERVER_REFETCH_COOLDOWN: REFETCH_COOLDOWN_SECONDS,
      SIGNING_KEY_ACTIVATION_DELAY: String(ACTIVATION_DELAY_SECONDS),
      ACCESS_TOKEN_TTL: '6',
      ID_TOKEN_TTL: '6',
    });
    psDatabase = await startDatabase();
    ps = await startInstance(
      PROTECTED_SERVER_MAIN,
      {
        DATABASE_URL: psDatabase.url ?? '',
        RESOURCE_URI: resource,
        AUTHORIZATION_SERVER: cluster.issuer,
        JWKS_CACHE_TTL: '2',
        JWKS_REFETCH_COOLDOWN: REFETCH_COOLDOWN_SECONDS,
        // Every call verifies its token's signature: no verdict is remembered.
        TOKEN_CACHE_TTL: '0',
      },
      psPort,
    );
  });
  afterAll(async () => {
    await ps?.process.stop('SIGKILL');
    await cluster?.stop();
    await psDatabase?.stop();
  });

  it('refuses no good token across the rotation, the activation and the retirement, and every forged one', async () => {
    const client: TestClient = await cluster.createClient();
    const user = await cluster.createUser();
    // One sign-in with a password, then the session: 20 token families of one user, plus one probe per instance.
    const ua = new HeadlessUserAgent();
    const families: { access: string; refresh: string }[] = [];
    for (let i = 0; i < CLIENTS + cluster.instances.length; i++) {
      const tokens = await signIn(cluster.issuer, client, user, { ua, resource, scope: 'notes:read' });
      expect(tokens.status).toBe(200);
      families.push({
        access: tokens.body['access_token'] as string,
        refresh: tokens.body['refresh_token'] as string,
      });
    }
    const probes = families.splice(CLIENTS);
    const oldKid = kidOf(families[0]!.access);
    /** What instance `index` signs with now, by a refresh made there directly. */
    const signsWith = async (index: number) => {
      const answer = await refresh(cluster.instances[index]!.url, client, probes[index]!.refresh);
      expect(answer.status).toBe(200);
      probes[index] = {
        access: answer.body['access_token'] as string,
        refresh: answer.body['refresh_token'] as string,
      };
      return kidOf(probes[index].access);
    };

    const calls: Call[] = [];
    const refreshes: { at: number; status: number; kid?: string; iat?: number }[] = [];
    const forged: { kind: string; status: number; challenge: string }[] = [];
    let running = true;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const loops = families.map(async (family, index) => {
      const eager = index % 2 === 0;
      // A lazy client refreshes when its token has this long left, each a different margin: tokens signed within
      // one second share their `exp` (whole seconds), so with one margin the lazy clients signed in within a second
      // would refresh in step, all at once, and could all cross the activation together, leaving no token of the old
      // key in use after it (seen once the sign-ins got fast enough to fall within a second).
      const margin = 1_500 + (index % 5) * 600;
      for (let round = 0; running; round++) {
        const token = family.access;
        const due = eager ? round % 4 === 3 : (decodeJwt(token).exp ?? 0) * 1000 - Date.now() < margin;
        // The refresh runs while the call with the current token is in flight.
        const [answer, refreshed] = await Promise.all([
          callTool(resource, token, 'notes_list', {}),
          due ? refresh(cluster.issuer, client, family.refresh) : undefined,
        ]);
        calls.push({
          at: Date.now(),
          kid: kidOf(token),
          status: answer.status,
          toolError: answer.result?.isError === true,
        });
        if (refreshed) {
          const access = refreshed.body['access_token'] as string | undefined;
          refreshes.push({
            at: Date.now(),
            status: refreshed.status,
            ...(access ? { kid: kidOf(access), iat: decodeJwt(access).iat! } : {}),
          });
          if (refreshed.status === 200 && access) {
            family.access = access;
            family.refresh = refreshed.body['refresh_token'] as string;
          }
        }
        await pause(50);
      }
    });
    // Forged tokens all along: every claim right, the key not the authorization server's.
    const attacker = await createSigningKey('123');
    const forge = (header: Record<string, unknown>) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: cluster.issuer,
        sub: 'mallory',
        aud: resource,
        client_id: client.clientId,
        scope: 'notes:read',
        iat: now,
        exp: now + 60,
        jti: randomUUID(),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header })
        .sign(attacker.privateKey);
    };
    const forgery = (async () => {
      while (running) {
        for (const [kind, header] of [
          ['kid 123', { kid: '123' }],
          ['jwk header', { jwk: attacker.publicJwk, kid: 'attacker' }],
        ] as const) {
          const answer = await callTool(resource, await forge(header), 'notes_list', {});
          forged.push({
            kind,
            status: answer.status,
            challenge: answer.headers.get('www-authenticate') ?? '',
          });
        }
        await pause(100);
      }
    })();

    await pause(1_500);
    const rotatedFrom = Date.now();
    const rotated = await admin(cluster, ['keys', 'rotate', '--json']);
    expect(rotated.code).toBe(0);
    const { kid: newKid, activates_at } = JSON.parse(rotated.out) as { kid: string; activates_at: string };
    const activatesAt = Date.parse(activates_at);
    // Staged: it signs the activation delay after the rotation, not at once.
    expect(activatesAt).toBeGreaterThanOrEqual(rotatedFrom + ACTIVATION_DELAY_SECONDS * 1000);

    // Published by both instances within their reload interval, while both still sign with the old key.
    await waitFor(
      async () =>
        (await Promise.all(cluster.instances.map(publishedKids))).every((kids) => kids.includes(newKid)),
      3_000,
    );
    expect(Date.now()).toBeLessThan(activatesAt - 1_000);
    expect([await signsWith(0), await signsWith(1)]).toEqual([oldKid, oldKid]);

    // From the activation, both sign with the new key, each by its own clock.
    await pause(activatesAt - Date.now() + 300);
    expect([await signsWith(0), await signsWith(1)]).toEqual([newKid, newKid]);

    // The old key leaves both instances' key sets once every token it signed has expired (6 s + one reload).
    await waitFor(
      async () =>
        (await Promise.all(cluster.instances.map(publishedKids))).every(
          (kids) => kids.length === 1 && kids[0] === newKid,
        ),
      15_000,
    );
    const retiredAt = Date.now();
    await pause(2_500);
    running = false;
    await Promise.all([...loops, forgery]);

    // Not one good token refused, with the old key or the new, before, during or after.
    expect(calls.filter((call) => call.status !== 200 || call.toolError)).toEqual([]);
    expect(refreshes.filter((answer) => answer.status !== 200)).toEqual([]);
    const afterActivation = calls.filter((call) => call.at > activatesAt + 500);
    expect(afterActivation.filter((call) => call.kid === oldKid).length).toBeGreaterThan(CLIENTS / 2);
    expect(afterActivation.filter((call) => call.kid === newKid).length).toBeGreaterThan(CLIENTS);
    expect(calls.filter((call) => call.at > retiredAt + 1_000 && call.kid === oldKid)).toEqual([]);
    // Every token refreshed clearly before the activation carries the old kid, clearly after it the new one.
    const activationSecond = Math.floor(activatesAt / 1000);
    for (const answer of refreshes) {
      if (answer.iat! < activationSecond - 1) expect(answer.kid).toBe(oldKid);
      if (answer.iat! > activationSecond + 1) expect(answer.kid).toBe(newKid);
    }
    expect(refreshes.length).toBeGreaterThan(CLIENTS * 2);

    // Forged tokens: 401 invalid_token throughout, never a 503 or a success.
    expect(forged.length).toBeGreaterThan(40);
    expect(new Set(forged.map((answer) => answer.kind))).toEqual(new Set(['kid 123', 'jwk header']));
    expect(
      forged.filter((answer) => answer.status !== 401 || !answer.challenge.includes('invalid_token')),
    ).toEqual([]);
  });
});
