// The authorization server killed with SIGKILL (no shutdown at all) at the worst moments, then started again:
// - between the authorization response and the token request: the code is redeemed after the restart, tokens issued
//   before the crash still verify and refresh, and nothing is left half-written (a code without its grant, a redeemed
//   code whose grant has no token, a consumed refresh token without a successor);
// - in the middle of concurrent refreshes: each family is either untouched or rotated whole;
// - on the embedded database, in the middle of registrations: every registration it acknowledged is there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  HeadlessUserAgent,
  postgresServerAvailable,
  AUTHORIZATION_SERVER_MAIN,
  authorizationRequest,
  authorize,
  redeem,
  refresh,
  refreshFamilies,
  RESOURCE,
  signIn,
  startAuthorizationServers,
  startInstance,
  type AuthorizationServerCluster,
  type Instance,
} from '@portcullis/testing';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

/** Kills the cluster's only instance with SIGKILL and puts a fresh process in its place behind the balancer. */
async function crashAndRestart(cluster: AuthorizationServerCluster): Promise<Instance> {
  const [crashed] = cluster.instances.splice(0, 1);
  cluster.balancer.remove(crashed!.url);
  expect(await crashed!.process.stop('SIGKILL')).toBe('SIGKILL');
  const restarted = await cluster.startInstance();
  cluster.balancer.add(restarted.url);
  return restarted;
}

/** Rows a half-done write would leave behind. */
async function orphans(cluster: AuthorizationServerCluster) {
  const [row] = await cluster.database.database.withSession((session) =>
    session.query<{ codes: number; grants: number; refresh: number }>(`
      SELECT
        (SELECT count(*)::int FROM authorization_codes c
          WHERE NOT EXISTS (SELECT 1 FROM grants g WHERE g.id = c.grant_id)) AS codes,
        (SELECT count(*)::int FROM grants g
          WHERE EXISTS (SELECT 1 FROM authorization_codes c WHERE c.grant_id = g.id AND c.consumed_at IS NOT NULL)
            AND g.revoked_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM access_tokens a WHERE a.grant_id = g.id)) AS grants,
        (SELECT count(*)::int FROM grants g
          WHERE g.revoked_at IS NULL
            AND EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.grant_id = g.id)
            AND (SELECT count(*) FROM refresh_tokens r WHERE r.grant_id = g.id AND r.consumed_at IS NOT NULL)
              <> (SELECT count(*) FROM refresh_tokens r WHERE r.grant_id = g.id) - 1) AS refresh`),
  );
  return row;
}

describeWithPostgres('the authorization server killed mid-flow (PostgreSQL)', () => {
  let cluster: AuthorizationServerCluster;
  beforeAll(async () => {
    cluster = await startAuthorizationServers(1);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('redeems, after a restart, a code issued before the crash; earlier tokens verify and refresh', async () => {
    const client = await cluster.createClient();
    const user = await cluster.createUser();
    const ua = new HeadlessUserAgent();
    const earlier = await signIn(cluster.issuer, client, user, { ua });
    expect(earlier.status).toBe(200);
    const pending = authorizationRequest(cluster.issuer, client);
    const callback = await authorize(ua, pending, user, client);

    await crashAndRestart(cluster);

    const redeemed = await redeem(cluster.issuer, client, callback, pending);
    expect(redeemed.status).toBe(200);
    const jwks = (await (await fetch(`${cluster.issuer}/jwks`)).json()) as JSONWebKeySet;
    await expect(
      jwtVerify(earlier.body['access_token'] as string, createLocalJWKSet(jwks), {
        issuer: cluster.issuer,
        audience: RESOURCE,
      }),
    ).resolves.toBeDefined();
    expect((await refresh(cluster.issuer, client, earlier.body['refresh_token'] as string)).status).toBe(200);
    expect(await orphans(cluster)).toEqual({ codes: 0, grants: 0, refresh: 0 });
  });

  it('leaves each refresh family untouched or rotated whole when killed during concurrent refreshes', async () => {
    const client = await cluster.createClient();
    const families = await refreshFamilies(cluster, client, 30);

    // The kill comes as the first answer arrives: the others are in the server, somewhere between reading the token
    // and committing its successor.
    let firstAnswered!: () => void;
    const answeredOnce = new Promise<void>((resolve) => (firstAnswered = resolve));
    const inFlight = families.map((token) =>
      refresh(cluster.instances[0]!.url, client, token).then(
        (answer) => {
          firstAnswered();
          return answer;
        },
        () => null,
      ),
    );
    await answeredOnce;
    await crashAndRestart(cluster);
    const answered = await Promise.all(inFlight);
    // Some were cut off by the kill: the test saw requests in flight.
    expect(answered.filter((answer) => answer === null).length).toBeGreaterThan(0);

    expect(await orphans(cluster)).toEqual({ codes: 0, grants: 0, refresh: 0 });
    // Whatever answered 200 before the kill was committed: its successor works. The others were either never
    // consumed (the retry works) or consumed and committed (a retry is reuse: the client lost the response).
    for (const [index, answer] of answered.entries()) {
      if (answer?.status === 200) {
        expect((await refresh(cluster.issuer, client, answer.body['refresh_token'] as string)).status).toBe(
          200,
        );
      } else {
        expect([200, 400]).toContain((await refresh(cluster.issuer, client, families[index]!)).status);
      }
    }
    expect(await orphans(cluster)).toEqual({ codes: 0, grants: 0, refresh: 0 });
  });
});

describe('the authorization server killed while writing to its embedded database', () => {
  let dir: string;
  let instance: Instance | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-faults-embedded-'));
  });
  afterAll(async () => {
    await instance?.process.stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every registration it acknowledged', async () => {
    const env = { PGLITE_DIR: dir, ISSUER: 'http://localhost:4000', RATE_LIMIT_REGISTER: '100000' };
    instance = await startInstance(AUTHORIZATION_SERVER_MAIN, env);
    const acknowledged: { clientId: string; token: string }[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const response = await fetch(`${instance!.url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'crash test',
            redirect_uris: ['http://127.0.0.1/callback'],
            token_endpoint_auth_method: 'none',
            application_type: 'native',
          }),
        }).catch(() => undefined);
        if (response?.status !== 201) continue;
        const body = (await response.json().catch(() => undefined)) as
          { client_id: string; registration_access_token: string } | undefined;
        if (body) acknowledged.push({ clientId: body.client_id, token: body.registration_access_token });
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await instance.process.stop('SIGKILL')).toBe('SIGKILL');
    writing = false;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(5);

    instance = await startInstance(AUTHORIZATION_SERVER_MAIN, env);
    const missing: string[] = [];
    for (const { clientId, token } of acknowledged) {
      const read = await fetch(`${instance.url}/register/${encodeURIComponent(clientId)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (read.status !== 200) missing.push(`${clientId}: ${read.status}`);
    }
    expect(missing).toEqual([]);
  });
});
