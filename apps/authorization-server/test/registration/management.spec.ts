import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

interface Registered extends Record<string, unknown> {
  client_id: string;
  registration_access_token: string;
  registration_client_uri: string;
}

// RFC 7592: a dynamically registered client reads, updates and deletes its own registration at its client
// configuration endpoint with its registration access token; anyone else gets 401 invalid_token and changes nothing.
describe('client registration management (RFC 7592)', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '100000' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  const metadata = (overrides: Record<string, unknown> = {}) => ({
    client_name: 'Managed',
    application_type: 'native',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
    ...overrides,
  });

  async function register(): Promise<Registered> {
    const response = await fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata()),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Registered;
  }

  const call = (method: string, url: string, token: string | undefined, body?: unknown) =>
    fetch(url, {
      method,
      headers: {
        ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  const row = (clientId: string) => as.prisma.client.findUnique({ where: { id: clientId } });

  it('returns a registration access token and the client configuration endpoint, storing only the token’s hash', async () => {
    const registered = await register();
    expect(registered.registration_client_uri).toBe(`${as.issuer}/register/${registered.client_id}`);
    expect(registered.registration_access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await row(registered.client_id);
    expect(stored?.registrationTokenHash).toBeTruthy();
    expect(stored?.registrationTokenHash).not.toContain(registered.registration_access_token);
  });

  it('reads the registration with its token', async () => {
    const registered = await register();
    const response = await call(
      'GET',
      registered.registration_client_uri,
      registered.registration_access_token,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({
      client_id: registered.client_id,
      client_name: 'Managed',
      redirect_uris: ['http://127.0.0.1/callback'],
      registration_client_uri: registered.registration_client_uri,
    });
  });

  it.each([
    ['no token', undefined, undefined],
    ['a wrong token', 'x'.repeat(43), 'invalid_token'],
  ])(
    'refuses %s with 401 and a Bearer challenge, for read, update and delete alike',
    async (_name, token, error) => {
      const registered = await register();
      const before = await row(registered.client_id);
      for (const [method, body] of [
        ['GET'],
        ['PUT', { ...metadata({ client_name: 'Hijacked' }), client_id: registered.client_id }],
        ['DELETE'],
      ] as const) {
        const response = await call(method, registered.registration_client_uri, token, body);
        expect(response.status).toBe(401);
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge).toMatch(/^Bearer/);
        if (error) expect(challenge).toContain(`error="${error}"`);
        else expect(challenge).not.toContain('error=');
      }
      expect(await row(registered.client_id)).toEqual(before);
    },
  );

  it('refuses another client’s token, and answers an unknown client the same way', async () => {
    const mine = await register();
    const theirs = await register();
    const before = await row(mine.client_id);
    const response = await call('GET', mine.registration_client_uri, theirs.registration_access_token);
    expect(response.status).toBe(401);
    const unknown = await call('GET', `${as.issuer}/register/dcr_nobody`, theirs.registration_access_token);
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual(await response.json());
    expect(await row(mine.client_id)).toEqual(before);
  });

  it('updates the metadata after the registration checks, and keeps what a refused update sent from changing anything', async () => {
    const registered = await register();
    const uri = registered.registration_client_uri;
    const token = registered.registration_access_token;
    const before = await row(registered.client_id);

    const wrongId = await call('PUT', uri, token, { ...metadata(), client_id: 'dcr_other' });
    expect(wrongId.status).toBe(400);
    expect(((await wrongId.json()) as { error: string }).error).toBe('invalid_client_metadata');
    const badRedirect = await call('PUT', uri, token, {
      ...metadata({ redirect_uris: ['http://evil.example/cb'] }),
      client_id: registered.client_id,
    });
    expect(badRedirect.status).toBe(400);
    const newMethod = await call('PUT', uri, token, {
      ...metadata({ token_endpoint_auth_method: 'client_secret_basic' }),
      client_id: registered.client_id,
    });
    expect(await newMethod.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'token_endpoint_auth_method cannot change',
    });
    expect(await row(registered.client_id)).toEqual(before);

    const updated = await call('PUT', uri, token, {
      ...metadata({ client_name: 'Renamed', redirect_uris: ['http://127.0.0.1/other'] }),
      client_id: registered.client_id,
      registration_access_token: 'ignored',
    });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({
      client_name: 'Renamed',
      redirect_uris: ['http://127.0.0.1/other'],
    });
    expect(await row(registered.client_id)).toMatchObject({
      name: 'Renamed',
      redirectUris: ['http://127.0.0.1/other'],
    });
  });

  it('deletes the client with its grants revoked, after which its token opens nothing', async () => {
    const registered = await register();
    const client = { clientId: registered.client_id, redirectUri: 'http://127.0.0.1/callback' };
    const user = await as.createUser();
    const request = authorizationRequest(as, client, { scope: 'notes:read offline_access' });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const tokens = (await redeem(as, client, callback, request)).body as { refresh_token: string };

    const response = await call(
      'DELETE',
      registered.registration_client_uri,
      registered.registration_access_token,
    );
    expect(response.status).toBe(204);
    expect(await row(registered.client_id)).toBeNull();
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: registered.client_id } });
    expect(grants.every((grant) => grant.revokedAt !== null)).toBe(true);
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: registered.client_id,
    });
    expect(refreshed.status).toBeGreaterThanOrEqual(400);
    expect(
      (await call('GET', registered.registration_client_uri, registered.registration_access_token)).status,
    ).toBe(401);
  });
});
