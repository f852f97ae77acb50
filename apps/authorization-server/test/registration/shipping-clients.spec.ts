// The registrations shipping MCP clients send, replayed byte for byte (each body's source is named beside it), under
// the default revision (2026-07-28): what each registers, what the 201 and the RFC 7592 read say was registered, and
// where a refusal is still right, that it stores nothing and redirects nowhere.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientRegistrationResponseSchema } from '@portcullis/metadata';
import {
  claudeAiRegistration,
  CURSOR_REDIRECT,
  cursorRegistration,
  DEVICE_CODE_GRANT,
  HeadlessUserAgent,
  MCP_SDK_V1_APP_REGISTRATION,
  vscodeRegistration,
} from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  settle,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { register } from './registration.helpers.js';

/** The bodies as each client sends them (`libs/testing/src/shipping-clients`, sources named there). */
const VSCODE = vscodeRegistration({ scope: 'notes:read' });
const CLAUDE_AI = claudeAiRegistration();
const SDK_V1_APP = MCP_SDK_V1_APP_REGISTRATION;
const CURSOR = cursorRegistration();

/** The registration as RFC 7592 2.1 reads it back with its registration access token. */
async function readBack(registered: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(registered['registration_client_uri'] as string, {
    headers: { authorization: `Bearer ${registered['registration_access_token'] as string}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('the registrations shipping MCP clients send', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '10000' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it.each([
    ['claude.ai', 'web', CLAUDE_AI],
    ['an MCP SDK v1 app (LangChain)', 'native', SDK_V1_APP],
  ])(
    'register %s without application_type as %s, and say so in the 201 and the RFC 7592 read',
    async (_name, type, body) => {
      const before = await as.prisma.client.count();
      const registered = await register(as, body);
      expect(registered.status).toBe(201);
      const information = ClientRegistrationResponseSchema.parse(registered.body);
      expect(information).toMatchObject({
        application_type: type,
        token_endpoint_auth_method: 'client_secret_post',
      });
      expect(information.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await as.prisma.client.count()).toBe(before + 1);
      const row = await as.prisma.client.findUniqueOrThrow({ where: { id: information.client_id } });
      expect(row.applicationType).toBe(type);
      expect(await readBack(registered.body)).toMatchObject({ application_type: type });
    },
  );

  it("registers VS Code's registration: native with https and loopback redirects, the device code grant left out", async () => {
    const registered = await register(as, VSCODE);
    expect(registered.status).toBe(201);
    const information = ClientRegistrationResponseSchema.parse(registered.body);
    expect(information).toMatchObject({
      client_name: 'Visual Studio Code',
      redirect_uris: VSCODE.redirect_uris,
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      // RFC 7591 3.2.1: the server registered other values than requested, and the response says which.
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    const row = await as.prisma.client.findUniqueOrThrow({ where: { id: information.client_id } });
    expect(row.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    expect(await readBack(registered.body)).toMatchObject({
      grant_types: ['authorization_code', 'refresh_token'],
      application_type: 'native',
    });

    // Its loopback server listens on 33418, which it registered with its port, and on another port when 33418 is
    // busy, which only the portless http://127.0.0.1/ covers (RFC 8252 7.3).
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    for (const redirectUri of ['http://127.0.0.1:33418/', 'http://127.0.0.1:49731/']) {
      const client: TestClient = { clientId: information.client_id, redirectUri };
      const request = authorizationRequest(as, client, { scope: 'notes:read' });
      const callback = await authorize(ua, request, user, client);
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
      const tokens = await redeem(as, client, callback, request);
      expect(tokens.status).toBe(200);
      expect(tokens.body['refresh_token']).toEqual(expect.any(String));
    }
  });

  it('refuses the registration when none of its grant types is offered, storing nothing', async () => {
    const before = await as.prisma.client.count();
    const refused = await register(as, { ...VSCODE, grant_types: [DEVICE_CODE_GRANT], response_types: [] });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(refused.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: `grant_types not supported: ${DEVICE_CODE_GRANT} (offered: authorization_code refresh_token)`,
    });
    expect(await as.prisma.client.count()).toBe(before);
  });

  it("refuses Cursor's private-use redirect while ALLOWED_REDIRECT_SCHEMES names no scheme, storing nothing", async () => {
    const before = await as.prisma.client.count();
    const refused = await register(as, CURSOR);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(refused.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris[0] must use one of the schemes https, http',
    });
    expect(await as.prisma.client.count()).toBe(before);
  });

  it('refuses web beside a loopback redirect URI, storing nothing', async () => {
    const before = await as.prisma.client.count();
    const refused = await register(as, { ...VSCODE, application_type: 'web' });
    expect(refused.status).toBe(400);
    expect(refused.body['error']).toBe('invalid_client_metadata');
    expect(refused.body['error_description']).toBe(
      "application_type web takes https redirect_uris only; http://127.0.0.1/ is a native app's (register it as native)",
    );
    expect(await as.prisma.client.count()).toBe(before);
  });
});

describe('Cursor, where the operator allows its private-use scheme (ALLOWED_REDIRECT_SCHEMES=cursor)', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: { ALLOWED_REDIRECT_SCHEMES: 'cursor', RATE_LIMIT_REGISTER: '10000' },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('registers it as native, flags the scheme on the consent page and hands the code to a cursor: Location', async () => {
    const registered = await register(as, CURSOR);
    expect(registered.status).toBe(201);
    const information = ClientRegistrationResponseSchema.parse(registered.body);
    expect(information).toMatchObject({ redirect_uris: [CURSOR_REDIRECT], application_type: 'native' });

    // Cursor's authorization request: the server's scopes_supported, PKCE, no resource (the one resource is meant).
    const metadata = (await (await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported: string[];
    };
    const scope = metadata.scopes_supported.join(' ');
    const user = await as.createUser();
    const client: TestClient = { clientId: information.client_id, redirectUri: CURSOR_REDIRECT };
    const request = authorizationRequest(as, client, { resource: undefined, scope });
    const ua = new HeadlessUserAgent();
    const isCallback = (url: string) => url.startsWith(CURSOR_REDIRECT);
    const login = await settle(ua, await ua.get(request.url), isCallback);
    const consent = await settle(
      ua,
      await ua.submit(login.response.form(), { username: user.username, password: user.password }),
      isCallback,
    );
    expect(consent.response.body).toContain('id="warning-private-use"');
    expect(consent.response.body).toContain('<strong>cursor:</strong> link, not to a web site');
    expect(consent.response.body).toContain('the application that opens cursor: links');
    const back = await settle(
      ua,
      await ua.submit(consent.response.form(), {}, { button: { name: 'decision', value: 'approve' } }),
      isCallback,
    );
    expect(back.stoppedAt?.protocol).toBe('cursor:');
    const callback = back.stoppedAt!;
    expect(callback.searchParams.get('state')).toBe(request.state);
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    const tokens = await redeem(as, client, callback, request, { resource: undefined });
    expect(tokens.status).toBe(200);
    expect(tokens.body['scope']).toBe(scope);

    // Approved once, a second authorization in the same session still waits for a click: any application can claim
    // cursor: links, as any program can listen on a loopback port (RFC 8252 8.6).
    const again = authorizationRequest(as, client, { resource: undefined, scope: 'notes:read' });
    const confirmation = await settle(ua, await ua.get(again.url), isCallback);
    expect(confirmation.stoppedAt).toBeUndefined();
    expect(confirmation.response.body).toContain('id="confirm-continue"');
    expect(confirmation.response.body).toContain('the application that opens cursor: links');
  });

  it('still refuses a scheme it does not allow, and a private-use URI without a path, storing nothing', async () => {
    const before = await as.prisma.client.count();
    for (const [uri, description] of [
      ['vscode://callback/x', 'redirect_uris[0] must use one of the schemes https, http, cursor'],
      ['cursor:callback', 'redirect_uris[0] must name a path after its private-use scheme (scheme:/path)'],
    ] as const) {
      const refused = await register(as, { ...CURSOR, redirect_uris: [uri] });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
      expect(refused.body).toEqual({ error: 'invalid_redirect_uri', error_description: description });
    }
    expect(await as.prisma.client.count()).toBe(before);
  });
});
