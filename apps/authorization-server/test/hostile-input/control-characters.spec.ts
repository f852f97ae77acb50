import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectHostileInputRefused, HeadlessUserAgent, type HostileInputTarget } from '@portcullis/testing';
import {
  RESOURCE,
  authorizationRequest,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { basic } from '../introspection/introspection.helpers.js';

// NUL cannot be stored in PostgreSQL and a lone surrogate has no UTF-8 form: a request carrying either is refused
// where it is parsed, in the endpoint's own format (a JSON OAuth error on the back channel, an HTML page on the front
// channel), and nothing is written. Forms and query strings carry NUL as %00; JSON carries both.
describe('control characters and lone surrogates are input, not a crash', () => {
  let as: AuthorizationServerFixture;
  let client: TestClient;
  let resourceServer: TestClient;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '100000' } });
    client = await as.createClient();
    resourceServer = await as.createClient({ confidential: 'client_secret_basic', resourceServer: RESOURCE });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Everything a request could write: grants, codes, tokens, consents, clients, users, pending authorizations. */
  async function written(): Promise<Record<string, number>> {
    return {
      ...(await as.counts()),
      clients: await as.prisma.client.count(),
      users: await as.prisma.user.count(),
      pending: await as.prisma.pendingAuthorization.count(),
      sessions: await as.prisma.loginSession.count(),
    };
  }

  const form = (path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${as.app.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params).toString(),
    });
  const register = (metadata: Record<string, unknown>) =>
    fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
  const authorize = (overrides: Record<string, string>) =>
    fetch(authorizationRequest(as, client, overrides).url, { redirect: 'manual' });

  /** The endpoints and parameters a value is sent in, each answering in its own format. */
  const targets: Record<string, HostileInputTarget & { format: 'json' | 'html' }> = {
    'GET /authorize state': {
      encoding: 'form',
      format: 'html',
      send: (value) => authorize({ state: value }),
    },
    'GET /authorize nonce': {
      encoding: 'form',
      format: 'html',
      send: (value) => authorize({ nonce: value }),
    },
    'GET /authorize client_id': {
      encoding: 'form',
      format: 'html',
      send: (value) => authorize({ client_id: value }),
    },
    'POST /token code': {
      encoding: 'form',
      format: 'json',
      send: (value) =>
        form('/token', {
          grant_type: 'authorization_code',
          code: value,
          client_id: client.clientId,
          code_verifier: 'v'.repeat(43),
        }),
    },
    'POST /token refresh_token': {
      encoding: 'form',
      format: 'json',
      send: (value) =>
        form('/token', { grant_type: 'refresh_token', refresh_token: value, client_id: client.clientId }),
    },
    'POST /token client_id': {
      encoding: 'form',
      format: 'json',
      send: (value) => form('/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: value }),
    },
    'POST /introspect token': {
      encoding: 'form',
      format: 'json',
      send: (value) => form('/introspect', { token: value }, basic(resourceServer)),
    },
    'POST /revoke token': {
      encoding: 'form',
      format: 'json',
      send: (value) => form('/revoke', { token: value, client_id: client.clientId }),
    },
    'POST /register client_name': {
      encoding: 'json',
      format: 'json',
      send: (value) =>
        register({ client_name: value, redirect_uris: ['http://127.0.0.1/cb'], application_type: 'native' }),
    },
    'POST /register contacts': {
      encoding: 'json',
      format: 'json',
      send: (value) =>
        register({
          client_name: 'x',
          contacts: [value],
          redirect_uris: ['http://127.0.0.1/cb'],
          application_type: 'native',
        }),
    },
    'GET /login interaction': {
      encoding: 'form',
      format: 'html',
      send: (value) =>
        fetch(`${as.app.url}/login?${new URLSearchParams({ interaction: value }).toString()}`, {
          redirect: 'manual',
        }),
    },
    'POST /login username': {
      encoding: 'form',
      format: 'html',
      send: (value) => form('/login', { interaction: 'i', csrf: 'c', username: value, password: 'p' }),
    },
    'POST /consent scope': {
      encoding: 'form',
      format: 'html',
      send: (value) => form('/consent', { interaction: 'i', csrf: 'c', decision: 'approve', scope: value }),
    },
  };

  describe.each(Object.entries(targets))('%s', (_name, target) => {
    it.each([
      ['a NUL', 'before\u0000after'],
      ['an escape sequence', '\u001b[31mred'],
    ])('refuses %s with 400 in the endpoint’s format, writing nothing', async (_what, value) => {
      const before = await written();
      const response = await target.send(value);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      const body = await response.text();
      if (target.format === 'json') {
        expect(JSON.parse(body)).toMatchObject({
          error: expect.stringMatching(/^(invalid_request|invalid_client_metadata)$/),
          error_description: expect.stringContaining('control character'),
        });
      } else {
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(body).toContain('control character');
      }
      expect(await written()).toEqual(before);
    });
  });

  it.each(['/token', '/introspect', '/revoke'])(
    'refuses a NUL in an HTTP Basic client_id or secret at %s with 401 invalid_client, writing nothing',
    async (path) => {
      for (const credentials of [`a%00b:secret`, `${resourceServer.clientId}:se\u0000cret`]) {
        const before = await written();
        const response = await form(
          path,
          { grant_type: 'refresh_token', refresh_token: 'x', token: 'x' },
          { authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` },
        );
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ error: 'invalid_client' });
        expect(await written()).toEqual(before);
      }
    },
  );

  it('refuses a lone surrogate in JSON (the one way it can arrive) with invalid_client_metadata', async () => {
    const before = await written();
    const response = await fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"client_name":"lone \\ud800 high","redirect_uris":["http://127.0.0.1/cb"],"application_type":"native"}',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'client_name contains a control character',
    });
    expect(await written()).toEqual(before);
  });

  it('never answers 5xx to arbitrary Unicode (controls and surrogates included) in any of these parameters', async () => {
    await expectHostileInputRefused(targets, written, 120);
  }, 120_000);

  it('still serves the same parameters when they are plain text (the control for the refusals above)', async () => {
    expect((await authorize({ state: 'plain state' })).status).toBe(303);
    const ua = new HeadlessUserAgent();
    const login = await ua.follow(await ua.get(authorizationRequest(as, client, { state: 's\tt' }).url));
    expect(login.status).toBe(200);
    expect(
      (
        await register({
          client_name: 'Plain ✓',
          redirect_uris: ['http://127.0.0.1/cb'],
          application_type: 'native',
        })
      ).status,
    ).toBe(201);
  });
});
