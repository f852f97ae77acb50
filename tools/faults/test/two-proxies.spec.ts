// Two proxy processes on one PostgreSQL behind a round-robin balancer, in front of the Portcullis authorization
// server as their upstream: the proxy's consent, the trip upstream and the callback cross instances (the upstream
// state and the flow's progress live in the database, the cookies are signed with the shared COOKIE_SECRET), the code
// is redeemed and refreshed on either, and 20 concurrent refreshes of one token spread over both let exactly one
// succeed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientRepository, hashClientSecret } from '@portcullis/authorization';
import {
  HeadlessUserAgent,
  postgresServerAvailable,
  startBalancer,
  startDatabase,
  type Balancer,
  type TestDatabase,
  type UserAgentResponse,
  authorizationRequest,
  PROXY_MAIN,
  redeem,
  refresh,
  RESOURCE,
  startAuthorizationServers,
  startInstance,
  type AuthorizationServerCluster,
  type Instance,
  type TestClient,
} from '@portcullis/testing';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

/** Walks the pages of a proxied flow as a person would, until the redirect to the client (not requested). */
async function walk(
  ua: HeadlessUserAgent,
  start: UserAgentResponse,
  user: { username: string; password: string },
  redirectUri: string,
): Promise<URL> {
  let current = start;
  for (let steps = 0; steps < 30; steps++) {
    if ([302, 303].includes(current.status) && current.location) {
      if (current.location.startsWith(redirectUri)) return new URL(current.location);
      current = await ua.follow(current);
      continue;
    }
    if (current.status !== 200) throw new Error(`the flow stopped with ${current.status} at ${current.url}`);
    const form = current.form();
    current =
      'username' in form.fields
        ? await ua.submit(form, { username: user.username, password: user.password })
        : await ua.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
  }
  throw new Error('the flow did not end');
}

describeWithPostgres('two proxies behind a balancer', () => {
  let upstream: AuthorizationServerCluster;
  let balancer: Balancer;
  let database: TestDatabase;
  const proxies: Instance[] = [];
  let client: TestClient;
  beforeAll(async () => {
    upstream = await startAuthorizationServers(1, {
      RESOURCES: JSON.stringify([{ uri: RESOURCE, scopes_supported: ['notes:read', 'notes:write'] }]),
    });
    balancer = await startBalancer();
    const upstreamSecret = randomBytes(24).toString('base64url');
    await new ClientRepository(upstream.database.database.prisma).create({
      clientId: 'portcullis-proxy',
      clientName: 'Portcullis proxy',
      redirectUris: [`${balancer.url}/upstream/callback`],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(upstreamSecret),
    });
    database = await startDatabase();
    const env = {
      DATABASE_URL: database.url ?? '',
      ISSUER: balancer.url,
      COOKIE_SECRET: randomBytes(32).toString('base64url'),
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_TOKEN: '100000',
      RATE_LIMIT_LOGIN: '100000',
      UPSTREAM_ISSUER: upstream.issuer,
      UPSTREAM_CLIENT_ID: 'portcullis-proxy',
      UPSTREAM_CLIENT_SECRET: upstreamSecret,
      UPSTREAM_SCOPES: 'openid',
      RESOURCES: JSON.stringify([{ uri: RESOURCE, scopes_supported: ['notes:read', 'notes:write'] }]),
    };
    for (let i = 0; i < 2; i++) {
      const proxy = await startInstance(PROXY_MAIN, env);
      proxies.push(proxy);
      balancer.add(proxy.url);
    }
    const created = await new ClientRepository(database.database.prisma).create({
      clientId: `proxied-${randomBytes(4).toString('hex')}`,
      clientName: 'Proxied client',
      redirectUris: ['http://127.0.0.1/callback'],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      origin: 'preregistered',
    });
    client = { clientId: created.clientId, redirectUri: 'http://127.0.0.1/callback' };
  });
  afterAll(async () => {
    for (const proxy of proxies) await proxy.process.stop('SIGKILL');
    await balancer?.close();
    await database?.stop();
    await upstream?.stop();
  });

  async function signedIn() {
    const user = await upstream.createUser();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(balancer.url, client, 'notes:read');
    const callback = await walk(ua, await ua.get(request.url), user, client.redirectUri);
    const tokens = await redeem(balancer.url, client, callback, request);
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  it('walks one flow across both instances, through the upstream, and refreshes on either', async () => {
    const before = proxies.map((proxy) => balancer.sent.get(proxy.url) ?? 0);
    const tokens = await signedIn();
    const during = proxies.map((proxy, index) => (balancer.sent.get(proxy.url) ?? 0) - before[index]!);
    expect(during.every((count) => count >= 2)).toBe(true);
    let current = tokens.refresh_token;
    for (const proxy of proxies) {
      const rotated = await refresh(proxy.url, client, current);
      expect(rotated.status).toBe(200);
      current = rotated.body['refresh_token'] as string;
    }
  });

  it('lets exactly one of 20 concurrent refreshes of one token spread over both succeed', async () => {
    const raced = await signedIn();
    const bystander = await signedIn();

    const results = await Promise.all(
      Array.from({ length: 20 }, () => refresh(balancer.url, client, raced.refresh_token)),
    );

    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.body['error'] === 'invalid_grant')).toHaveLength(19);
    expect((await refresh(balancer.url, client, bystander.refresh_token)).status).toBe(200);
  });
});
