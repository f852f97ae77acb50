import { FormUserAgent } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createAuthorizedFetch,
  findPortcullisError,
  mcpTransportOptions,
  type AuthorizedFetch,
} from '@portcullis/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { countingFetch, serveClientMetadata, text } from './support/client-helpers.js';
import { startStack, type Stack } from './support/stack.js';

async function connect(authorizedFetch: AuthorizedFetch, resource: string): Promise<Client> {
  const client = new Client({ name: 'portcullis-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), mcpTransportOptions(authorizedFetch)),
  );
  return client;
}

describe('the client SDK against the real authorization server and protected server', () => {
  let stack: Stack;
  let clientId: string;
  beforeAll(async () => {
    stack = await startStack({
      authorizationServerEnv: { CIMD_ALLOW_LOOPBACK: 'true' },
      before: async (admin) => {
        const created = await admin(
          'clients',
          'create',
          '--name',
          'E2E client',
          '--redirect-uri',
          'http://127.0.0.1/callback',
          '--json',
        );
        expect(created.code).toBe(0);
        clientId = (JSON.parse(created.stdout) as { client_id: string }).client_id;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('authorizes a pre-registered client, steps up from notes:read to notes:write, and refreshes with rotation', async () => {
    let grantWrite = false;
    const userAgent = new FormUserAgent(stack.user, () => (grantWrite ? {} : { untick: ['notes:write'] }));
    const counts: Record<string, number> = {};
    let clockOffset = 0;
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent,
      clientCredentials: { clientId, issuer: stack.issuer },
      fetch: countingFetch(counts),
      now: () => Date.now() + clockOffset,
    });

    const mcp = await connect(authorizedFetch, stack.resource);
    expect(userAgent.shown).toEqual({ login: 1, consent: 1, confirm: 0 });
    expect(counts['authorization_code']).toBe(1);
    const tools = await mcp.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
      'notes_create',
      'notes_delete',
      'notes_get',
      'notes_list',
    ]);

    grantWrite = true;
    const created = await mcp.callTool({
      name: 'notes_create',
      arguments: { title: 'from e2e', body: 'hello' },
    });
    expect(created.isError).toBeFalsy();
    // The step-up needed a new consent (wider scope) but no new sign-in: the session cookie carried over.
    expect(userAgent.shown).toEqual({ login: 1, consent: 2, confirm: 0 });
    expect(counts['authorization_code']).toBe(2);

    const listed = await mcp.callTool({ name: 'notes_list', arguments: {} });
    expect(text(listed)).toContain('from e2e');

    // The client's clock passes the access token's expiry: 50 concurrent calls make exactly one refresh.
    clockOffset = 3_600_000;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => mcp.callTool({ name: 'notes_list', arguments: {} })),
    );
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(counts).toEqual({ authorization_code: 2, refresh_token: 1 });
    expect(await authorizedFetch.tokens()).toMatchObject({
      issuer: stack.issuer,
      resource: stack.resource,
      clientId,
      scope: expect.arrayContaining(['notes:read', 'notes:write']),
      hasRefreshToken: true,
    });
    await mcp.close();
  });

  it('gives up with step_up_exhausted when the user never grants the scope an operation needs', async () => {
    const userAgent = new FormUserAgent(stack.user, () => ({ untick: ['notes:write'] }));
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent,
      clientCredentials: { clientId, issuer: stack.issuer },
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    const outcome = await mcp.callTool({ name: 'notes_create', arguments: { title: 'never' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(findPortcullisError(outcome)?.code).toBe('step_up_exhausted');
    expect(userAgent.shown.consent).toBeLessThanOrEqual(4);
    await mcp.close();
  });

  it('gets a client ID by dynamic registration when it has no other, and calls a tool', async () => {
    const userAgent = new FormUserAgent(stack.user);
    const progress: string[] = [];
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent,
      onProgress: (event) => progress.push(`${event.step}: ${event.message}`),
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    const created = await mcp.callTool({
      name: 'notes_create',
      arguments: { title: 'registered dynamically' },
    });
    expect(created.isError).toBeFalsy();
    const registered = progress.find((line) => line.startsWith('client_id:'));
    expect(registered).toMatch(/regist/i);
    const summary = await authorizedFetch.tokens();
    expect(summary?.clientId).toMatch(/^dcr_/);
    await mcp.close();
  });

  it('registers again when the operator deleted its dynamic registration, at the next refresh (invalid_client)', async () => {
    const userAgent = new FormUserAgent(stack.user);
    const progress: string[] = [];
    let clockOffset = 0;
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent,
      onProgress: (event) => progress.push(`${event.step}: ${event.message}`),
      now: () => Date.now() + clockOffset,
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
    const first = (await authorizedFetch.tokens())?.clientId;
    expect(first).toMatch(/^dcr_/);

    // As an authorization server does with a registration left unused (ours: DCR_IDLE_CLIENT_TTL), or an operator.
    const deleted = await stack.admin('clients', 'delete', first!);
    expect(deleted.code).toBe(0);
    // Past the server's short-lived client cache, and past the access token's expiry on the client's clock.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    clockOffset = 3_600_000;

    expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
    const second = (await authorizedFetch.tokens())?.clientId;
    expect(second).toMatch(/^dcr_/);
    expect(second).not.toBe(first);
    expect(progress.some((line) => line.includes('invalid_client'))).toBe(true);
    await mcp.close();
  });

  it('uses a client ID metadata document the authorization server fetches, and calls a tool', async () => {
    const userAgent = new FormUserAgent(stack.user);
    const { url, server, fetches } = await serveClientMetadata(userAgent.redirectUris);
    try {
      const authorizedFetch = createAuthorizedFetch({
        resource: stack.resource,
        userAgent,
        clientMetadataUrl: url,
      });
      const mcp = await connect(authorizedFetch, stack.resource);
      const listed = await mcp.callTool({ name: 'notes_list', arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect((await authorizedFetch.tokens())?.clientId).toBe(url);
      expect(fetches()).toBeGreaterThanOrEqual(1);
      await mcp.close();
    } finally {
      server.close();
    }
  });
});
