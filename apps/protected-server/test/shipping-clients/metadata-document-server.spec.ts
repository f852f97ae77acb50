// What shipping MCP clients send, replayed exactly (libs/testing/src/shipping-clients, one file per client, each
// naming its public sources), against the authorization server as `npm start` runs it under 2026-07-28: client ID
// metadata documents advertised, dynamic registration beside them, `cursor` allowed as a private-use redirect
// scheme. Each client goes from its first 401 to a tool call on this server.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CHATGPT_JWKS_URI,
  CHATGPT_METADATA_DOCUMENT,
  CLAUDE_AI_CALLBACK,
  CLAUDE_CODE_METADATA_DOCUMENT,
  CLAUDE_HOSTED_METADATA_DOCUMENT,
  CODEX_METADATA_DOCUMENT,
  CURSOR_REDIRECT,
  GOOSE_METADATA_DOCUMENT,
  VSCODE_DEFAULT_PORT,
  VSCODE_METADATA_DOCUMENT,
  chatgpt,
  claudeCode,
  claudeHosted,
  codex,
  cursor,
  driveShippingClient,
  goose,
  mcpInspector,
  visualStudioCode,
  type UserAgentResponse,
} from '@portcullis/testing';
import {
  accessTokenClaims,
  demoAtBrowser,
  expectToolCallCompleted,
  startShippingClientStack,
  type ShippingClientStack,
} from '../support/shipping-client-stack.js';

const CLIENTS = [claudeCode(), claudeHosted(), chatgpt(), codex(), visualStudioCode(), goose()];

describe('shipping clients at a server that advertises client ID metadata documents', () => {
  let stack: ShippingClientStack;
  beforeAll(async () => {
    stack = await startShippingClientStack(CLIENTS, { ALLOWED_REDIRECT_SCHEMES: 'cursor' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const drive = (client: Parameters<typeof driveShippingClient>[0], seen: UserAgentResponse[] = []) =>
    driveShippingClient(client, { resource: stack.resource, person: demoAtBrowser(seen) });

  /** Metadata-document clients are fetched, never stored as clients. */
  async function expectNoClientStored(clientId: string): Promise<void> {
    expect(await stack.prisma.client.count({ where: { id: clientId } })).toBe(0);
  }

  it('lets Claude Code use its metadata document on an ephemeral localhost port, scope from the challenge', async () => {
    const run = await drive(claudeCode());
    expect(run.choice).toEqual({ kind: 'metadata-document', clientId: CLAUDE_CODE_METADATA_DOCUMENT });
    // The document registers the portless http://localhost/callback; the request names the port it listens on.
    expect(run.redirectUri).toMatch(/^http:\/\/localhost:\d+\/callback$/u);
    expect(run.authorizationRequest.searchParams.get('scope')).toBe(
      [run.discovery.challenge.params['scope'], 'offline_access'].join(' '),
    );
    expect(run.authorizationRequest.searchParams.get('resource')).toBe(stack.resource);
    expect(run.token['refresh_token']).toEqual(expect.any(String));
    expect(stack.documents.requests(CLAUDE_CODE_METADATA_DOCUMENT)).toBeGreaterThan(0);
    await expectNoClientStored(CLAUDE_CODE_METADATA_DOCUMENT);
    expectToolCallCompleted(run, stack);
    expect(run.tools.called).toEqual(['notes_create', 'notes_list']);
  });

  it('lets a Claude Code version that sends no resource through, with a token for the one resource', async () => {
    const run = await drive(claudeCode({ resource: 'omitted' }));
    expect(run.authorizationRequest.searchParams.has('resource')).toBe(false);
    expect(run.tokenRequest.has('resource')).toBe(false);
    expectToolCallCompleted(run, stack);
  });

  it('lets claude.ai and Claude Desktop use their metadata document with the hosted claude.ai callback', async () => {
    const run = await drive(claudeHosted());
    expect(run.choice).toEqual({ kind: 'metadata-document', clientId: CLAUDE_HOSTED_METADATA_DOCUMENT });
    expect(run.redirectUri).toBe(CLAUDE_AI_CALLBACK);
    expect(run.authentication).toBe('none');
    await expectNoClientStored(CLAUDE_HOSTED_METADATA_DOCUMENT);
    expectToolCallCompleted(run, stack);
  });

  it('lets ChatGPT authenticate with private_key_jwt against the keys at its jwks_uri, OpenID scopes beside the resource scopes', async () => {
    const run = await drive(chatgpt());
    expect(run.choice).toEqual({ kind: 'metadata-document', clientId: CHATGPT_METADATA_DOCUMENT });
    expect(run.authentication).toBe('private_key_jwt');
    expect(run.tokenRequest.get('client_assertion_type')).toBe(
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    expect(run.tokenRequest.has('client_secret')).toBe(false);
    expect(run.authorizationRequest.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['openid', 'email', 'offline_access', 'profile', 'notes:read', 'notes:write']),
    );
    expect(run.tokenRequest.get('resource')).toBe(stack.resource);
    expect(stack.documents.requests(CHATGPT_JWKS_URI)).toBeGreaterThan(0);
    expectToolCallCompleted(run, stack);
    expect(run.tools.called).toEqual(['notes_create', 'notes_list']);
  });

  it("lets Codex use its stable document with the authorization server's scopes_supported, byte for byte", async () => {
    const run = await drive(codex());
    expect(run.choice).toEqual({ kind: 'metadata-document', clientId: CODEX_METADATA_DOCUMENT });
    expect(run.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/u);
    expect(run.authorizationRequest.searchParams.get('scope')).toBe(
      (run.discovery.serverMetadata['scopes_supported'] as string[]).join(' '),
    );
    expectToolCallCompleted(run, stack);
  });

  it('lets VS Code use its metadata document on 127.0.0.1, port 33418 or whichever it got', async () => {
    const run = await drive(visualStudioCode());
    expect(run.choice).toEqual({ kind: 'metadata-document', clientId: VSCODE_METADATA_DOCUMENT });
    expect(run.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/u);
    expectToolCallCompleted(run, stack);
  });

  it('lets VS Code in when 33418 is busy: its document registers that port, any port is accepted', async () => {
    const holder = await holdPort(VSCODE_DEFAULT_PORT);
    try {
      const run = await drive(visualStudioCode());
      expect(run.redirectPortFellBack).toBe(true);
      expect(new URL(run.redirectUri).port).not.toBe(String(VSCODE_DEFAULT_PORT));
      expectToolCallCompleted(run, stack);
    } finally {
      if (holder) await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('lets Cursor register its private-use scheme redirect where the operator allows it, flagged on consent', async () => {
    const seen: UserAgentResponse[] = [];
    const run = await drive(cursor(), seen);
    expect(run.choice.kind).toBe('dynamic');
    expect(run.registration?.response).toMatchObject({ redirect_uris: [CURSOR_REDIRECT] });
    expect(run.callback.href.startsWith(`${CURSOR_REDIRECT}?`)).toBe(true);
    expect(run.authorizationRequest.searchParams.has('resource')).toBe(false);
    const consent = seen.find((page) => page.forms().some((form) => form.action.endsWith('/consent')));
    expect(consent?.body).toContain('cursor:');
    expectToolCallCompleted(run, stack);
  });

  it('lets Goose use its metadata document; a document without grant_types gets no refresh token', async () => {
    const run = await drive(goose());
    expect(run.choice).toEqual({ kind: 'metadata-document', clientId: GOOSE_METADATA_DOCUMENT });
    expect(run.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth_callback$/u);
    expect(run.token['refresh_token']).toBeUndefined();
    expect(accessTokenClaims(run).scope).not.toContain('offline_access');
    expectToolCallCompleted(run, stack);
  });

  it.each([['browser' as const], ['command-line' as const]])(
    'lets the MCP Inspector (%s) register its fixed loopback callback',
    async (surface) => {
      const run = await drive(mcpInspector({ surface }));
      expect(run.choice.kind).toBe('dynamic');
      const host = surface === 'browser' ? 'localhost' : '127.0.0.1';
      expect(run.redirectUri).toMatch(
        new RegExp(`^http://${host.replaceAll('.', '\\.')}:\\d+/oauth/callback$`, 'u'),
      );
      expect(run.registration?.response).toMatchObject({ application_type: 'native' });
      expectToolCallCompleted(run, stack);
    },
  );
});

/**
 * Listens on `port` so that a client finds it busy. Another test may hold it for a moment (the proxy's VS Code
 * flow): try for a few seconds; undefined when something else keeps it, which leaves it busy all the same.
 */
async function holdPort(port: number): Promise<Server | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const server = createServer();
    const held = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (held) return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
