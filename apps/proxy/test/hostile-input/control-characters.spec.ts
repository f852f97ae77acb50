import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hasUnsafeCharacter } from '@portcullis/protocol';
import { freePort } from '@portcullis/testing';
import fc from 'fast-check';
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

  const targets: Record<string, (value: string) => Promise<Response>> = {
    'GET /authorize state': (value) => authorize({ state: value }),
    'GET /authorize client_id': (value) => authorize({ client_id: value }),
    'POST /token code': (value) =>
      post('/token', {
        grant_type: 'authorization_code',
        code: value,
        client_id: client.clientId,
        code_verifier: 'v'.repeat(43),
      }),
    'POST /token refresh_token': (value) =>
      post('/token', { grant_type: 'refresh_token', refresh_token: value, client_id: client.clientId }),
    'POST /revoke token': (value) => post('/revoke', { token: value, client_id: client.clientId }),
    'POST /introspect token': (value) => post('/introspect', { token: value }),
    'POST /register client_name': (value) =>
      fetch(`${proxy.app.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: value,
          redirect_uris: ['http://127.0.0.1/cb'],
          application_type: 'native',
        }),
      }),
    'POST /upstream/consent interaction': (value) =>
      post('/upstream/consent', { interaction: value, csrf: 'c', decision: 'approve' }),
    'GET /upstream/callback code': (value) =>
      get('/upstream/callback', { code: value, state: 'x'.repeat(43) }),
    'GET /upstream/callback state': (value) => get('/upstream/callback', { code: 'c', state: value }),
  };

  it.each(Object.keys(targets))('%s: refuses a NUL with 400 and writes nothing', async (name) => {
    const before = await written();
    const response = await targets[name]!('before\u0000after');
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('control character');
    expect(await written()).toEqual(before);
  });

  it('never answers 5xx to arbitrary Unicode (controls and surrogates included) in any of these parameters', async () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc
        .tuple(
          fc.string({ maxLength: 10 }),
          fc.constantFrom('\u0000', '\u0007', '\u007f', '\ud800', '\udfff'),
        )
        .map(([text, bad]) => `${text}${bad}${text}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(targets)), value, async (name, text) => {
        const before = await written();
        const response = await targets[name]!(text);
        await response.arrayBuffer();
        expect(response.status).toBeLessThan(500);
        // Form and query encoding turn a lone surrogate into U+FFFD; JSON keeps it.
        const arrives = name.includes('/register') ? text : new URLSearchParams({ v: text }).get('v')!;
        if (hasUnsafeCharacter(arrives)) {
          expect(response.status).toBe(400);
          expect(await written()).toEqual(before);
        }
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
