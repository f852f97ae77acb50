import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  launchChromium,
  recordPageProblems,
  startDatabase,
  startLoopbackServer,
  startTestAuthorizationServer,
  type LoopbackServer,
  type TestAuthorizationServer,
  type TestDatabase,
} from '@portcullis/testing';
import type { Browser, Page } from 'playwright-core';
import { countNotes, MODERN_REVISION } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const TIMEOUT = 60_000;

/** A fetch() request the page makes: what survives being passed into the page. */
interface PageRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What the page's script saw of a response: only what CORS lets a cross-origin page read. */
interface SeenResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A web app's page on a loopback origin of its own: an empty document, its script run by the test. */
async function startPageServer(): Promise<LoopbackServer> {
  return startLoopbackServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html><head><title>MCP web client</title></head><body></body></html>');
  });
}

/** Runs `fetch(url, init)` in the page and returns what its script can read, or the error it gets. */
function fetchFromPage(
  page: Page,
  url: string,
  init: PageRequest = {},
): Promise<SeenResponse | { error: string }> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        return { status: response.status, headers, body: await response.text() };
      } catch (error) {
        return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      }
    },
    { url, init },
  );
}

function seen(result: SeenResponse | { error: string }): SeenResponse {
  if ('error' in result) throw new Error(`the page's fetch failed: ${result.error}`);
  return result;
}

/** A tools/call in the 2026-07-28 stateless form, with the headers that form requires. */
function statelessToolCall(token: string, name: string, args: Record<string, unknown>): PageRequest {
  return {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'web-client', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
}

/**
 * A browser-based MCP client (a web app, the MCP Inspector connecting directly) in Chromium: its page is served from
 * another loopback origin (another port) and calls the protected server with fetch(), so every request is
 * cross-origin and only what CORS grants is readable.
 */
describe('a browser client on another origin, in Chromium', () => {
  let browser: Browser;
  let as: TestAuthorizationServer;
  let database: TestDatabase;
  let app: ProtectedServer;
  let allowedPage: LoopbackServer;
  let foreignPage: LoopbackServer;

  beforeAll(async () => {
    browser = await launchChromium();
    allowedPage = await startPageServer();
    foreignPage = await startPageServer();
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    database = await startDatabase();
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      database,
      env: { CORS_ORIGINS: allowedPage.url },
    });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await database?.stop();
    await as?.close();
    await allowedPage?.close();
    await foreignPage?.close();
  });

  async function openPage(server: LoopbackServer): Promise<{ page: Page; problems: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const problems = recordPageProblems(page);
    expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
    return { page, problems };
  }

  it(
    'reads the 401 challenge and the resource metadata, then calls a tool with a token and reads the result',
    async () => {
      const { page, problems } = await openPage(allowedPage);
      expect(new URL(page.url()).origin).not.toBe(new URL(app.url).origin);

      const challenged = seen(
        await fetchFromPage(page, app.mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        }),
      );
      expect(challenged.status).toBe(401);
      const challenge = challenged.headers['www-authenticate'];
      expect(challenge).toMatch(/^Bearer /);
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge ?? '')?.[1];
      expect(metadataUrl).toBe(`${app.url}/.well-known/oauth-protected-resource/mcp`);

      const metadata = seen(await fetchFromPage(page, metadataUrl!));
      expect(metadata.status).toBe(200);
      expect(JSON.parse(metadata.body)).toMatchObject({
        resource: app.resource,
        authorization_servers: [as.issuer],
      });

      const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read notes:write' } });
      const created = seen(
        await fetchFromPage(
          page,
          app.mcpUrl,
          statelessToolCall(token, 'notes_create', { title: 'from a web page' }),
        ),
      );
      expect(created.status).toBe(200);
      const result = JSON.parse(created.body) as {
        result: { content: { text: string }[]; isError?: boolean };
      };
      expect(result.result.isError).toBeFalsy();
      expect(JSON.parse(result.result.content[0]!.text)).toMatchObject({ title: 'from a web page' });
      expect(await countNotes(app)).toBe(1);
      // Chromium logs the 401 itself as a failed resource load; no request was blocked by CORS.
      expect(problems.filter((problem) => /CORS|Access-Control/i.test(problem))).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'opens a 2025-11-25 session, reading its Mcp-Session-Id, and calls a tool in it',
    async () => {
      const { page } = await openPage(allowedPage);
      const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const initialize = seen(
        await fetchFromPage(page, app.mcpUrl, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'web', version: '1' },
            },
          }),
        }),
      );
      expect(initialize.status).toBe(200);
      const sessionId = initialize.headers['mcp-session-id'];
      expect(sessionId).toBeTruthy();
      const session = { ...headers, 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' };
      const initialized = seen(
        await fetchFromPage(page, app.mcpUrl, {
          method: 'POST',
          headers: session,
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        }),
      );
      expect(initialized.status).toBe(202);
      const listed = seen(
        await fetchFromPage(page, app.mcpUrl, {
          method: 'POST',
          headers: session,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'notes_list' },
          }),
        }),
      );
      expect(listed.status).toBe(200);
      expect(listed.body).toContain('"result"');
      expect(listed.body).not.toContain('"isError":true');
    },
    TIMEOUT,
  );

  it(
    'gives a page of an origin not in CORS_ORIGINS the public metadata only: its MCP calls fail, nothing is stored',
    async () => {
      const { page } = await openPage(foreignPage);
      const before = await countNotes(app);

      const metadata = seen(await fetchFromPage(page, `${app.url}/.well-known/oauth-protected-resource/mcp`));
      expect(metadata.status).toBe(200);

      const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read notes:write' } });
      const refused = await fetchFromPage(
        page,
        app.mcpUrl,
        statelessToolCall(token, 'notes_create', { title: 'from a foreign page' }),
      );
      expect(refused).toEqual({ error: expect.stringMatching(/^TypeError: Failed to fetch/) });
      const unauthenticated = await fetchFromPage(page, app.mcpUrl, { method: 'POST', body: '{}' });
      expect(unauthenticated).toEqual({ error: expect.stringMatching(/^TypeError: Failed to fetch/) });
      expect(await countNotes(app)).toBe(before);
    },
    TIMEOUT,
  );
});
