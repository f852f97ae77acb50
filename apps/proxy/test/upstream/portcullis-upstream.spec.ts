import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { walk } from '../support/person.js';
import { startPortcullisUpstream, type PortcullisUpstream } from '../support/portcullis-upstream.js';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';

describe('the Portcullis authorization server as the upstream (the npm start arrangement)', () => {
  let upstream: PortcullisUpstream;
  let proxy: ProxyFixture;
  let client: TestClient;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startPortcullisUpstream({
      redirectUri: proxyCallback(port),
      resource: 'http://localhost:4100/mcp',
    });
    proxy = await startProxy({ port, upstream, resource: RESOURCE, env: { UPSTREAM_SCOPES: 'openid' } });
    client = await proxy.createClient();
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('signs the user in with their password upstream, with PKCE, iss and nonce checked, and issues its own token', async () => {
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, RESOURCE);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, {
      login: upstream.user.username,
      password: upstream.user.password,
    });
    expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'session-consent']);
    const token = await redeem(proxy, client, result.stoppedAt!, request, RESOURCE);
    expect(token.status).toBe(200);
    const upstreamUser = await upstream.app.database.database.prisma.user.findUniqueOrThrow({
      where: { username: upstream.user.username },
    });
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: {
        provider_issuer_subject: { provider: 'oidc', issuer: upstream.issuer, subject: upstreamUser.id },
      },
    });
    const claims = decodeJwt(String(token.body['access_token']));
    expect(claims).toMatchObject({ iss: proxy.issuer, aud: RESOURCE, sub: identity.userId });
    expect(claims.sub).not.toBe(upstreamUser.id);
  });
});
