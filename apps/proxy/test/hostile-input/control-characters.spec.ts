import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectHostileInputRefused, freePort, type HostileInputTarget } from '@portcullis/testing';
import { startProxy, type ProxyFixture, type TestClient } from '../support/proxy.fixture.js';

// The proxy parses requests with the authorization server's modules plus its own consent form and upstream callback:
// a control character or a lone surrogate in any of their parameters is refused where it is parsed, in the endpoint's
// format, never a 5xx, and nothing is written. The upstream (unreachable here) is never needed to refuse.
describe('control characters and lone surrogates at the proxy', () => {
  let proxy: ProxyFixture;
  let client: TestClient;
  beforeAll(async () => {
    proxy = await startProxy({
      port: await freePort(),
      upstream: { issuer: 'http://127.0.0.1:9', clientId: 'unused', clientSecret: 'unused' },
      resource: 'http://127.0.0.1:9/mcp',
    });
    client = await proxy.createClient();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  async function written(): Promise<Record<string, number>> {
    return {
      ...(await proxy.counts()),
      clients: await proxy.prisma.client.count(),
      pending: await proxy.prisma.pendingAuthorization.count(),
    };
  }

  const url = (path: string, params: Record<string, string>) =>
    `${proxy.app.url}${path}?${new URLSearchParams(params).toString()}`;
  const get = (path: string, params: Record<string, string>) =>
    fetch(url(path, params), { redirect: 'manual' });
  const post = (path: string, params: Record<string, string>) =>
    fetch(`${proxy.app.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  const authorize = (overrides: Record<string, string>) =>
    get('/authorize', {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: 'http://127.0.0.1:9/mcp',
      state: 's',
      ...overrides,
    });

  const targets: Record<string, HostileInputTarget> = {
    'GET /authorize state': {
      encoding: 'form',
      send: (value) => authorize({ state: value }),
    },
    'GET /authorize client_id': {
      encoding: 'form',
      send: (value) => authorize({ client_id: value }),
    },
    'POST /token code': {
      encoding: 'form',
      send: (value) =>
        post('/token', {
          grant_type: 'authorization_code',
          code: value,
          client_id: client.clientId,
          code_verifier: 'v'.repeat(43),
        }),
    },
    'POST /token refresh_token': {
      encoding: 'form',
      send: (value) =>
        post('/token', { grant_type: 'refresh_token', refresh_token: value, client_id: client.clientId }),
    },
    'POST /revoke token': {
      encoding: 'form',
      send: (value) => post('/revoke', { token: value, client_id: client.clientId }),
    },
    'POST /introspect token': {
      encoding: 'form',
      send: (value) => post('/introspect', { token: value }),
    },
    'POST /register client_name': {
      encoding: 'json',
      send: (value) =>
        fetch(`${proxy.app.url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: value,
            redirect_uris: ['http://127.0.0.1/cb'],
            application_type: 'native',
          }),
        }),
    },
    'POST /upstream/consent interaction': {
      encoding: 'form',
      send: (value) => post('/upstream/consent', { interaction: value, csrf: 'c', decision: 'approve' }),
    },
    'GET /upstream/callback code': {
      encoding: 'form',
      send: (value) => get('/upstream/callback', { code: value, state: 'x'.repeat(43) }),
    },
    'GET /upstream/callback state': {
      encoding: 'form',
      send: (value) => get('/upstream/callback', { code: 'c', state: value }),
    },
  };

  it.each(Object.keys(targets))('%s: refuses a NUL with 400 and writes nothing', async (name) => {
    const before = await written();
    const response = await targets[name]!.send('before\u0000after');
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('control character');
    expect(await written()).toEqual(before);
  });

  it('never answers 5xx to arbitrary Unicode (controls and surrogates included) in any of these parameters', async () => {
    await expectHostileInputRefused(targets, written, 100);
  }, 120_000);
});
