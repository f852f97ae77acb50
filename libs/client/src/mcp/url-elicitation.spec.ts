import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { inputRequired, McpServer, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import {
  callToolWithUrlElicitation,
  handleUrlElicitations,
  URL_ELICITATION_CAPABILITY,
  UrlElicitationNotCompletedError,
  type UrlElicitation,
} from './url-elicitation.js';

/** A server whose tool needs the user to connect at `url` until `connected` is set. */
function connectingServer(url: string, state: { connected: boolean; calls: number }) {
  const server = new McpServer({ name: 'connecting', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('whoami', { description: 'who you are upstream' }, async () => {
    state.calls += 1;
    if (!state.connected) {
      throw new UrlElicitationRequiredError([
        { mode: 'url', elicitationId: `e-${state.calls}`, url, message: 'Connect your GitHub account.' },
      ]);
    }
    return { content: [{ type: 'text', text: 'octocat' }] };
  });
  return server;
}

describe('callToolWithUrlElicitation (MCP 2025-11-25 URL-mode elicitation)', () => {
  let client: Client;
  let server: McpServer;
  const state = { connected: false, calls: 0 };

  async function connect(url: string) {
    server = connectingServer(url, state);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: URL_ELICITATION_CAPABILITY });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  }
  beforeEach(() => {
    state.connected = false;
    state.calls = 0;
  });
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('shows the URL to the handler, and calls again once the user has completed it', async () => {
    await connect('https://proxy.example/connections/upstream/connect?ticket=t');
    const shown: UrlElicitation[] = [];
    const result = await callToolWithUrlElicitation(
      client,
      { name: 'whoami', arguments: {} },
      async (each) => {
        shown.push(each);
        state.connected = true;
        return 'completed';
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'octocat' }]);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ elicitationId: 'e-1', message: 'Connect your GitHub account.' });
    expect(shown[0]!.url.host).toBe('proxy.example');
    expect(state.calls).toBe(2);
  });

  it('stops when the user declines, without calling again', async () => {
    await connect('https://proxy.example/connect');
    await expect(
      callToolWithUrlElicitation(client, { name: 'whoami', arguments: {} }, async () => 'declined'),
    ).rejects.toBeInstanceOf(UrlElicitationNotCompletedError);
    expect(state.calls).toBe(1);
  });

  it('gives up after maxRounds calls when the server keeps asking', async () => {
    await connect('https://proxy.example/connect');
    let asked = 0;
    await expect(
      callToolWithUrlElicitation(
        client,
        { name: 'whoami', arguments: {} },
        async () => {
          asked += 1;
          return 'completed';
        },
        { maxRounds: 2 },
      ),
    ).rejects.toThrow('whoami still needs the user after 2 calls');
    expect([state.calls, asked]).toEqual([2, 1]);
  });

  it.each(['http://proxy.example/connect', 'javascript:alert(1)', 'https://user:pw@proxy.example/'])(
    'never shows %s to the user',
    async (url) => {
      await connect(url);
      let asked = 0;
      await expect(
        callToolWithUrlElicitation(client, { name: 'whoami', arguments: {} }, async () => {
          asked += 1;
          return 'completed';
        }),
      ).rejects.toThrow(/which is not (https|a URL)/);
      expect(asked).toBe(0);
    },
  );

  it('answers an elicitation/create request in URL mode through the same handler, and the tool answers after it', async () => {
    server = new McpServer({ name: 'asking', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('whoami', { description: 'who you are upstream' }, async (context) => {
      state.calls += 1;
      if (state.connected) return { content: [{ type: 'text', text: 'octocat' }] };
      if (context.mcpReq.inputResponses?.['connect'] !== undefined) {
        return { content: [{ type: 'text', text: 'not connected' }], isError: true };
      }
      return inputRequired({
        inputRequests: {
          connect: inputRequired.elicitUrl({
            url: 'https://proxy.example/connections/upstream/connect?ticket=t',
            message: 'Connect your GitHub account.',
          }),
        },
      });
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: URL_ELICITATION_CAPABILITY });
    const shown: string[] = [];
    handleUrlElicitations(client, async (each) => {
      shown.push(each.url.href);
      state.connected = true;
      return 'completed';
    });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'octocat' }]);
    expect(shown).toEqual(['https://proxy.example/connections/upstream/connect?ticket=t']);
  });

  it('lets any other error through', async () => {
    await connect('https://proxy.example/connect');
    await expect(
      callToolWithUrlElicitation(
        { callTool: () => Promise.reject(new Error('boom')) },
        { name: 'whoami' },
        async () => 'completed',
      ),
    ).rejects.toThrow('boom');
  });
});
