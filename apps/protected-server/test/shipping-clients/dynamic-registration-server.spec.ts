// What shipping MCP clients send, replayed exactly (libs/testing/src/shipping-clients), against an authorization
// server that offers no client ID metadata documents (CIMD_ENABLED=false) and names no private-use redirect scheme:
// every client falls back to dynamic registration (RFC 7591) with its own body, under 2026-07-28's registration
// rules, and goes from its first 401 to a tool call on this server, or is refused where the rules say so.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CLAUDE_AI_CALLBACK,
  DEVICE_CODE_GRANT,
  ShippingClientError,
  claudeCode,
  claudeHosted,
  codex,
  codexCallbackId,
  cursor,
  driveShippingClient,
  goose,
  visualStudioCode,
  type ShippingClient,
} from '@portcullis/testing';
import {
  demoAtBrowser,
  expectToolCallCompleted,
  startShippingClientStack,
  type ShippingClientStack,
} from '../support/shipping-client-stack.js';

describe('shipping clients at a server without client ID metadata documents', () => {
  let stack: ShippingClientStack;
  beforeAll(async () => {
    stack = await startShippingClientStack([], { CIMD_ENABLED: 'false' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const drive = (client: ShippingClient) =>
    driveShippingClient(client, { resource: stack.resource, person: demoAtBrowser() });

  it('registers Claude Code as a native client with its ephemeral localhost redirect', async () => {
    const run = await drive(claudeCode());
    expect(run.registration?.request).toMatchObject({
      client_name: 'Claude Code (notes)',
      redirect_uris: [run.redirectUri],
      application_type: 'native',
    });
    expect(run.registration?.response).toMatchObject({ token_endpoint_auth_method: 'none' });
    expectToolCallCompleted(run, stack);
  });

  it('registers claude.ai anew on every connection, confidential (client_secret_post), its type derived from its https redirect', async () => {
    const first = await drive(claudeHosted());
    const second = await drive(claudeHosted());
    for (const run of [first, second]) {
      expect(run.registration?.request).not.toHaveProperty('application_type');
      expect(run.registration?.response).toMatchObject({
        redirect_uris: [CLAUDE_AI_CALLBACK],
        token_endpoint_auth_method: 'client_secret_post',
        application_type: 'web',
        client_secret: expect.any(String),
      });
      expect(run.tokenRequest.get('client_secret')).toBe(run.registration?.response['client_secret']);
      expectToolCallCompleted(run, stack);
    }
    expect(first.clientId).not.toBe(second.clientId);
  });

  it("registers Codex with its callback-ID path and the authorization server's scopes", async () => {
    const run = await drive(codex());
    expect(run.redirectUri).toBe(
      `http://127.0.0.1:${new URL(run.redirectUri).port}/callback/${codexCallbackId(stack.resource)}`,
    );
    expect(run.registration?.request).toMatchObject({
      scope: (run.discovery.serverMetadata['scopes_supported'] as string[]).join(' '),
      application_type: 'native',
    });
    expectToolCallCompleted(run, stack);
  });

  it("registers VS Code's four redirect URIs, its grant types filtered to the server's", async () => {
    const run = await drive(visualStudioCode());
    expect(run.registration?.request['grant_types']).toEqual(['authorization_code', 'refresh_token']);
    expect(run.registration?.response).toMatchObject({ application_type: 'native' });
    expectToolCallCompleted(run, stack);
  });

  it('registers VS Code 1.104 without the device-code grant it asked for, and says so in the response', async () => {
    const run = await drive(visualStudioCode({ version: '1.104' }));
    expect(run.registration?.request['grant_types']).toContain(DEVICE_CODE_GRANT);
    expect(run.registration?.response['grant_types']).toEqual(['authorization_code', 'refresh_token']);
    expectToolCallCompleted(run, stack);
  });

  it('registers Goose through rmcp', async () => {
    const run = await drive(goose());
    expect(run.registration?.request).toMatchObject({ client_name: 'goose', application_type: 'native' });
    expectToolCallCompleted(run, stack);
  });

  it("refuses Cursor's private-use scheme redirect where the operator allows none, and stores nothing", async () => {
    const before = await stack.prisma.client.count();
    const refusal = await drive(cursor()).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ShippingClientError);
    expect(refusal).toMatchObject({
      step: 'registration',
      status: 400,
      answer: { error: 'invalid_redirect_uri' },
    });
    expect(await stack.prisma.client.count()).toBe(before);
  });
});
