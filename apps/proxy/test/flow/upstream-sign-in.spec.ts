import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { walk } from '../support/person.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';

describe('signing in at the upstream through the proxy', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let client: TestClient;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({ port, upstream, resource: RESOURCE });
    client = await proxy.createClient({ origin: 'preregistered', name: 'Notes desktop' });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('shows its consent page, signs the person in upstream and issues its own token for the resource', async () => {
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, RESOURCE);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login: 'alice' });
    expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent']);
    expect(result.stoppedAt?.searchParams.get('iss')).toBe(proxy.issuer);
    expect(result.stoppedAt?.searchParams.get('state')).toBe(request.state);

    const token = await redeem(proxy, client, result.stoppedAt!, request, RESOURCE);
    expect(token.status).toBe(200);
    const claims = decodeJwt(String(token.body['access_token']));
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: { provider_issuer_subject: { provider: 'oidc', issuer: upstream.issuer, subject: 'alice' } },
    });
    expect(claims).toMatchObject({
      iss: proxy.issuer,
      aud: RESOURCE,
      sub: identity.userId,
      client_id: client.clientId,
    });
  });
});
