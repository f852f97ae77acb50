// An instance that carries out a request and dies before answering it: HAProxy (`retry-on empty-response`, `option
// redispatch`, as docker/ha/haproxy.cfg sets it) sends the request again to the peer, which finds its work done (the
// pending authorization taken, the code redeemed, the refresh token rotated). Two authorization server processes on
// one PostgreSQL behind a balancer that throws away the first answer of each chosen request and sends the request to
// the other instance: a sign-in whose login, consent and code redemption answers are all lost, and a refresh whose
// answer is lost, still complete, with one grant, one code and one token family, as the HA stack's settings
// (AUTHORIZATION_CODE_REUSE_GRACE, REFRESH_TOKEN_REUSE_GRACE) have them. Without the code's grace window the
// redemption sent again is a replayed code (RFC 6749 4.1.2): refused, the grant revoked.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  HeadlessUserAgent,
  postgresServerAvailable,
  authorizationRequest,
  authorize,
  redeem,
  refresh,
  startAuthorizationServers,
  type AuthorizationServerCluster,
} from '@portcullis/testing';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

const hashed = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

type Tokens = { access_token: string; refresh_token: string };

/** The grant a code belongs to, and how many codes and grants its client has. */
async function stored(cluster: AuthorizationServerCluster, clientId: string, code: string) {
  const [row] = await cluster.database.database.withSession((session) =>
    session.query<{ grants: number; codes: number; consents: number; revoked: boolean; consumed: boolean }>(
      `SELECT (SELECT count(*)::int FROM grants WHERE client_id = $1) AS grants,
              (SELECT count(*)::int FROM consents WHERE client_id = $1) AS consents,
              (SELECT count(*)::int FROM authorization_codes WHERE client_id = $1) AS codes,
              (SELECT g.revoked_at IS NOT NULL FROM grants g JOIN authorization_codes c ON c.grant_id = g.id
                WHERE c.code_hash = $2) AS revoked,
              (SELECT consumed_at IS NOT NULL FROM authorization_codes WHERE code_hash = $2) AS consumed`,
      [clientId, hashed(code)],
    ),
  );
  return row!;
}

const post = (path: string) => (method: string, at: string) => method === 'POST' && at === path;

describeWithPostgres('answers lost after the work was done, sent again to the peer (HA settings)', () => {
  let cluster: AuthorizationServerCluster;
  beforeAll(async () => {
    cluster = await startAuthorizationServers(2, {
      AUTHORIZATION_CODE_REUSE_GRACE: '30',
      REFRESH_TOKEN_REUSE_GRACE: '30',
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('completes a sign-in whose login, consent and code redemption answers were all lost', async () => {
    const client = await cluster.createClient();
    const user = await cluster.createUser();
    for (const path of ['/login', '/consent', '/token']) cluster.balancer.loseAnswers(post(path));
    const request = authorizationRequest(cluster.issuer, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const tokens = await redeem(cluster.issuer, client, callback, request);
    expect(cluster.balancer.answersLost).toEqual(['POST /login', 'POST /consent', 'POST /token']);
    expect(tokens.status).toBe(200);
    const code = callback.searchParams.get('code')!;
    expect(await stored(cluster, client.clientId, code)).toEqual({
      grants: 1,
      codes: 1,
      consents: 1,
      revoked: false,
      consumed: true,
    });

    // A refresh whose answer is lost: the peer answers it from the reuse grace window; the family goes on.
    cluster.balancer.loseAnswers(post('/token'));
    const refreshed = await refresh(cluster.issuer, client, (tokens.body as Tokens).refresh_token);
    expect(refreshed.status).toBe(200);
    const next = await refresh(cluster.issuer, client, (refreshed.body as Tokens).refresh_token);
    expect(next.status).toBe(200);
    expect(cluster.balancer.answersLost).toHaveLength(4);
    expect((await stored(cluster, client.clientId, code)).revoked).toBe(false);
  });
});

describeWithPostgres(
  'answers lost after the work was done, without the code grace window (the default)',
  () => {
    let cluster: AuthorizationServerCluster;
    beforeAll(async () => {
      cluster = await startAuthorizationServers(2);
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it('still completes the pages, but a lost redemption answer makes the retry a replayed code', async () => {
      const client = await cluster.createClient();
      const user = await cluster.createUser();
      cluster.balancer.loseAnswers(post('/consent'));
      const request = authorizationRequest(cluster.issuer, client);
      const callback = await authorize(new HeadlessUserAgent(), request, user, client);
      expect(cluster.balancer.answersLost).toEqual(['POST /consent']);
      cluster.balancer.loseAnswers(post('/token'));
      const tokens = await redeem(cluster.issuer, client, callback, request);
      expect({ status: tokens.status, error: tokens.body['error'] }).toEqual({
        status: 400,
        error: 'invalid_grant',
      });
      expect(await stored(cluster, client.clientId, callback.searchParams.get('code')!)).toEqual({
        grants: 1,
        codes: 1,
        consents: 1,
        revoked: true,
        consumed: true,
      });
    });
  },
);
