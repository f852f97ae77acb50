import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  RESOURCE,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { basic, issueTokens, postForm } from './introspection.helpers.js';

describe('the introspection endpoint answers only authenticated confidential clients', () => {
  let as: AuthorizationServerFixture;
  let resourceServer: TestClient;
  let publicClient: TestClient;
  let token: string;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    resourceServer = await as.createClient({ confidential: 'client_secret_basic', resourceServer: RESOURCE });
    publicClient = await as.createClient();
    token = (await issueTokens(as, publicClient, await as.createUser())).access_token;
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Asserts a 401 `invalid_client` that says nothing about the token. */
  function expectInvalidClient(response: Awaited<ReturnType<typeof postForm>>): void {
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.body).not.toHaveProperty('active');
    expect(response.headers.get('www-authenticate')).toContain('Basic');
    expect(response.headers.get('cache-control')).toBe('no-store');
  }

  it('is advertised with its authentication methods', async () => {
    const metadata = (await (
      await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      introspection_endpoint: `${as.issuer}/introspect`,
      introspection_endpoint_auth_methods_supported: [
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
    });
  });

  it('refuses a public client naming itself with client_id', async () => {
    expectInvalidClient(await postForm(as, 'introspect', { token, client_id: publicClient.clientId }));
  });

  it('refuses a request without client authentication', async () => {
    expectInvalidClient(await postForm(as, 'introspect', { token }));
  });

  it('refuses a wrong secret and an unknown client alike', async () => {
    expectInvalidClient(
      await postForm(as, 'introspect', { token }, basic({ ...resourceServer, clientSecret: 'wrong' })),
    );
    expectInvalidClient(
      await postForm(as, 'introspect', { token }, basic({ ...resourceServer, clientId: 'nobody' })),
    );
  });

  it('refuses a missing token, a repeated parameter and a JSON body with invalid_request', async () => {
    expect((await postForm(as, 'introspect', {}, basic(resourceServer))).body.error).toBe('invalid_request');
    const repeated = await fetch(`${as.app.url}/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(resourceServer) },
      body: `token=${token}&token=x`,
    });
    expect(repeated.status).toBe(400);
    const json = await fetch(`${as.app.url}/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...basic(resourceServer) },
      body: JSON.stringify({ token }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('is not open to browsers (no CORS)', async () => {
    const response = await postForm(
      as,
      'introspect',
      { token },
      { ...basic(resourceServer), origin: 'https://app.example' },
    );
    expect(response.body.active).toBe(true);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
