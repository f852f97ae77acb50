// The registrations shipping MCP clients send, replayed byte for byte at the proxy (the same registration checks
// as the authorization server's, libs/authorization): VS Code's native registration with https and loopback
// redirects and the device code grant, claude.ai's and an MCP SDK v1 app's without application_type, and Cursor's
// private-use redirect, refused unless ALLOWED_REDIRECT_SCHEMES names its scheme, then flagged on the proxy's consent
// page and given its code at a cursor: Location after the upstream sign-in.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  claudeAiRegistration,
  CURSOR_REDIRECT,
  cursorRegistration,
  freePort,
  HeadlessUserAgent,
  MCP_SDK_V1_APP_REGISTRATION,
  vscodeRegistration,
} from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import { walk } from '../support/person.js';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

/** The bodies as each client sends them (`libs/testing/src/shipping-clients`, sources named there). */
const VSCODE = vscodeRegistration({ scope: 'notes:read' });
const CLAUDE_AI = claudeAiRegistration();
const SDK_V1_APP = MCP_SDK_V1_APP_REGISTRATION;
const CURSOR = cursorRegistration();

const RESOURCE = 'https://notes.example/mcp';

async function register(proxy: ProxyFixture, body: unknown) {
  const response = await fetch(`${proxy.issuer}/register`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('the proxy registers what shipping MCP clients send', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({ port, upstream, resource: RESOURCE });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("registers VS Code's registration as native with its https and loopback redirects, without the device code grant", async () => {
    const registered = await register(proxy, VSCODE);
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      redirect_uris: VSCODE.redirect_uris,
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const row = await proxy.prisma.client.findUniqueOrThrow({
      where: { id: registered.body['client_id'] as string },
    });
    expect(row).toMatchObject({
      applicationType: 'native',
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });

  it.each([
    ['claude.ai', 'web', CLAUDE_AI],
    ['an MCP SDK v1 app (LangChain)', 'native', SDK_V1_APP],
  ])('registers %s without application_type as %s, and says so', async (_name, type, body) => {
    const registered = await register(proxy, body);
    expect(registered.status).toBe(201);
    expect(registered.body['application_type']).toBe(type);
    const read = await fetch(registered.body['registration_client_uri'] as string, {
      headers: { authorization: `Bearer ${registered.body['registration_access_token'] as string}` },
    });
    expect(((await read.json()) as Record<string, unknown>)['application_type']).toBe(type);
  });

  it("refuses Cursor's private-use redirect while ALLOWED_REDIRECT_SCHEMES names no scheme, storing nothing", async () => {
    const before = await proxy.prisma.client.count();
    const refused = await register(proxy, CURSOR);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(refused.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris[0] must use one of the schemes https, http',
    });
    expect(await proxy.prisma.client.count()).toBe(before);
  });

  it('stops the boot when ALLOWED_REDIRECT_SCHEMES names a scheme the browser handles itself', async () => {
    await expect(AppModule.configure({ ALLOWED_REDIRECT_SCHEMES: 'javascript' })).rejects.toThrow(
      'ALLOWED_REDIRECT_SCHEMES javascript is not a private-use scheme',
    );
  });
});

describe('Cursor at the proxy, where ALLOWED_REDIRECT_SCHEMES=cursor', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream,
      resource: RESOURCE,
      env: { ALLOWED_REDIRECT_SCHEMES: 'cursor' },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('registers it, flags the scheme on the consent page and hands the code to a cursor: Location', async () => {
    const registered = await register(proxy, CURSOR);
    expect(registered.status).toBe(201);
    expect(registered.body['application_type']).toBe('native');
    const client: TestClient = {
      clientId: registered.body['client_id'] as string,
      redirectUri: CURSOR_REDIRECT,
      name: 'Cursor',
    };
    // No resource, as Cursor sends none: the proxy's one resource is meant.
    const request = authorizationRequest(proxy, client, RESOURCE, { resource: undefined });
    const ua = new HeadlessUserAgent();
    const walked = await walk(ua, await ua.get(request.url), CURSOR_REDIRECT);
    expect(walked.pages[0]).toBe('proxy-consent');
    expect(walked.shown[0]!.body).toContain('id="warning-private-use"');
    expect(walked.shown[0]!.body).toContain('the application that opens cursor: links');
    expect(walked.stoppedAt?.protocol).toBe('cursor:');
    const callback = walked.stoppedAt!;
    expect(callback.searchParams.get('state')).toBe(request.state);
    const tokens = await redeem(proxy, client, callback, request, RESOURCE);
    expect(tokens.status).toBe(200);
  });
});
