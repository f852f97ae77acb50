import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { runCli } from './support/run-cli.js';

/**
 * An MCP server (2026-07-28, no authorization) whose tool `whoami` needs the person to visit `/connect` first, as a
 * server behind Portcullis's proxy asks a user to connect an account: until then it answers with an input-required
 * result embedding a URL elicitation of that page (the 2026-07-28 round trip), and with a tool error when the client
 * comes back without the user having been there.
 */
async function startConnectingServer() {
  const state = {
    connected: false,
    calls: 0,
    capabilities: [] as unknown[],
    message: 'Connect your GitHub account.',
  };
  let base = '';
  const tools = () => {
    const server = new McpServer({ name: 'connecting', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('whoami', { description: 'Who you are upstream.' }, async (context) => {
      state.calls += 1;
      state.capabilities.push(server.server.getClientCapabilities());
      if (state.connected) return { content: [{ type: 'text', text: 'octocat' }] };
      if (context.mcpReq.inputResponses?.['connect'] !== undefined) {
        return { content: [{ type: 'text', text: 'You are not connected yet.' }], isError: true };
      }
      return inputRequired({
        inputRequests: {
          connect: inputRequired.elicitUrl({
            url: `${base}/connect`,
            message: state.message,
          }),
        },
      });
    });
    return server;
  };
  const mcp = toNodeHandler(createMcpHandler(tools, { legacy: 'reject' }));
  const server: Server = createServer((request, response) => {
    if (request.url === '/connect') {
      state.connected = true;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('connected');
      return;
    }
    void mcp(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('portcullis call and a server that needs the person at a URL first (URL-mode elicitation)', () => {
  let home: string;
  let stub: Awaited<ReturnType<typeof startConnectingServer>>;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-elicit-'));
    stub = await startConnectingServer();
  });
  afterAll(async () => {
    await stub?.close();
    await rm(home, { recursive: true, force: true });
  });
  beforeEach(() => {
    stub.state.connected = false;
    stub.state.calls = 0;
    stub.state.capabilities = [];
    stub.state.message = 'Connect your GitHub account.';
  });

  const env = () => ({ PORTCULLIS_HOME: home });

  it('shows the URL, waits for the person, and calls again once they are done', async () => {
    const questions: string[] = [];
    const result = await runCli(['call', stub.url, 'whoami', '--headless'], env(), async (question) => {
      questions.push(question);
      // The person opens the page in their browser, then presses Enter.
      await fetch(new URL('/connect', stub.url));
      return '';
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('octocat');
    expect(result.stderr).toContain('Connect your GitHub account.');
    expect(result.stderr).toContain(new URL('/connect', stub.url).href);
    // Headless: nothing to open; only asked when they are done.
    expect(questions).toEqual(['  Press Enter once you have finished there (n to stop): ']);
    expect(stub.state.calls).toBe(2);
    // The client declared that it takes URL elicitations.
    expect(stub.state.capabilities[0]).toMatchObject({ elicitation: { url: {} } });
  });

  it('prints no escape sequence the server put in its message', async () => {
    stub.state.message = 'Connect \u001b[8mhidden\u001b[0m\nFake URL: https://evil.example';
    const result = await runCli(['call', stub.url, 'whoami', '--headless'], env());
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain('Connect \uFFFD[8mhidden\uFFFD[0m Fake URL: https://evil.example');
    expect(result.stderr).toContain(new URL('/connect', stub.url).href);
  });

  it('asks before opening the browser, and opens nothing when the person says no', async () => {
    const questions: string[] = [];
    const result = await runCli(['call', stub.url, 'whoami'], env(), async (question) => {
      questions.push(question);
      return 'n';
    });
    expect(questions).toEqual([
      `  Open ${new URL(stub.url).host} in your browser? [y/N] `,
      '  Press Enter once you have finished there (n to stop): ',
    ]);
    // Declined: the server hears so, and answers that the user is not connected.
    expect(result.code).toBe(1);
    expect(result.stdout.trim()).toBe('You are not connected yet.');
    expect(stub.state.connected).toBe(false);
    expect(stub.state.calls).toBe(2);
  });

  it('with nobody at the terminal, prints the URL and declines, so the call fails (exit 1)', async () => {
    const result = await runCli(['call', stub.url, 'whoami', '--headless'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(new URL('/connect', stub.url).href);
    expect(result.stdout.trim()).toBe('You are not connected yet.');
    expect(stub.state.connected).toBe(false);
  });
});
