import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyClientSecret } from '@portcullis/authorization';
import { AuthorizationServerMetadataSchema, ClientRegistrationResponseSchema } from '@portcullis/metadata';
import { registerClient } from '@modelcontextprotocol/client';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { nativeClient, register } from './registration.helpers.js';

describe('dynamic client registration (RFC 7591)', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '10000' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is advertised as registration_endpoint in the metadata', async () => {
    const metadata = AuthorizationServerMetadataSchema.parse(
      await (await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)).json(),
    );
    expect(metadata.registration_endpoint).toBe(`${as.issuer}/register`);
  });

  it('registers a native public client with 201, no secret and no-store, and that client completes the whole flow', async () => {
    const before = await as.prisma.client.count();
    const registered = await register(as, nativeClient({ scope: 'notes:read' }));
    expect(registered.status).toBe(201);
    expect(registered.headers.get('cache-control')).toBe('no-store');
    const body = ClientRegistrationResponseSchema.parse(registered.body);
    expect(body).toMatchObject({
      client_name: 'Notes CLI',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      scope: 'notes:read',
    });
    expect(body.client_secret).toBeUndefined();
    expect(body.client_id).toMatch(/^dcr_[A-Za-z0-9_-]{24}$/);
    expect(Math.abs(body.client_id_issued_at! - Date.now() / 1000)).toBeLessThan(60);
    expect(await as.prisma.client.count()).toBe(before + 1);
    const row = await as.prisma.client.findUniqueOrThrow({ where: { id: body.client_id } });
    expect(row).toMatchObject({
      origin: 'dynamic',
      secretHash: null,
      applicationType: 'native',
      scope: 'notes:read',
    });

    // The registered scope does not cap the authorization (our choice, for MCP SDK step-up), and the loopback
    // redirect takes any port (RFC 8252 7.3).
    const client: TestClient = { clientId: body.client_id, redirectUri: 'http://127.0.0.1:49152/callback' };
    const user = await as.createUser();
    const request = authorizationRequest(as, client, { scope: 'notes:read notes:write' });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    const tokens = await redeem(as, client, callback, request);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('notes:read notes:write');
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
  });

  it('registers a confidential client whose secret is shown once, stored hashed and accepted at the token endpoint', async () => {
    const registered = await register(as, {
      client_name: 'Notes web app',
      redirect_uris: ['https://notes.example/callback'],
      application_type: 'web',
    });
    expect(registered.status).toBe(201);
    const body = ClientRegistrationResponseSchema.parse(registered.body);
    // RFC 7591 2: client_secret_basic is the default method; 3.2.1: expires_at is required with a secret.
    expect(body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.client_secret_expires_at).toBe(0);
    expect(body.grant_types).toEqual(['authorization_code']);
    const row = await as.prisma.client.findUniqueOrThrow({ where: { id: body.client_id } });
    expect(row.secretHash).not.toContain(body.client_secret!);
    expect(verifyClientSecret(body.client_secret!, row.secretHash)).toBe(true);
    expect(JSON.stringify(row.metadata)).not.toContain(body.client_secret!);

    const basic = Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64');
    const authenticated = await tokenRequest(
      as,
      {
        grant_type: 'authorization_code',
        code: 'unknown',
        redirect_uri: 'https://notes.example/callback',
        code_verifier: 'a'.repeat(43),
      },
      { authorization: `Basic ${basic}` },
    );
    // Past client authentication: the code is what fails.
    expect(authenticated.body.error).toBe('invalid_grant');
    const wrong = await tokenRequest(
      as,
      { grant_type: 'authorization_code', code: 'unknown', code_verifier: 'a'.repeat(43) },
      { authorization: `Basic ${Buffer.from(`${body.client_id}:nope`).toString('base64')}` },
    );
    expect(wrong.status).toBe(401);
  });

  it('issues its own client_id, never an https:// one, whatever the request says, and drops unknown members', async () => {
    const registered = await register(
      as,
      nativeClient({
        client_id: 'https://evil.example/client.json',
        client_secret: 'chosen-by-the-client',
        client_id_issued_at: 1,
        software_statement: 'eyJ.e30.x',
        unknown_member: { nested: true },
      }),
    );
    expect(registered.status).toBe(201);
    expect(registered.body.client_id).not.toMatch(/^https:\/\//);
    expect(registered.body.client_id).toMatch(/^dcr_/);
    expect(registered.body).not.toHaveProperty('client_secret');
    expect(registered.body).not.toHaveProperty('software_statement');
    expect(registered.body).not.toHaveProperty('unknown_member');
    const row = await as.prisma.client.findUniqueOrThrow({
      where: { id: registered.body.client_id as string },
    });
    expect(row.metadata).not.toHaveProperty('client_secret');
    expect(row.metadata).not.toHaveProperty('unknown_member');
  });

  it('answers the registration the MCP SDK client sends, and the SDK accepts the response', async () => {
    const metadata = AuthorizationServerMetadataSchema.parse(
      await (await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)).json(),
    );
    const information = await registerClient(as.issuer, {
      metadata: metadata as Parameters<typeof registerClient>[1]['metadata'],
      clientMetadata: {
        client_name: 'MCP SDK client',
        redirect_uris: ['http://localhost:8090/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
      scope: 'notes:read',
    });
    expect(information.client_id).toMatch(/^dcr_/);
    expect(information.redirect_uris).toEqual(['http://localhost:8090/callback']);
  });

  it('allows CORS, preflight included, for browser-based clients', async () => {
    const preflight = await fetch(`${as.app.url}/register`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    const registered = await register(as, nativeClient(), { origin: 'https://app.example' });
    expect(registered.headers.get('access-control-allow-origin')).toBe('*');
  });
});
