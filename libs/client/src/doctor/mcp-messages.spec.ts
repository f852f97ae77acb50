import { describe, expect, it } from '@jest/globals';
import {
  discoverRequest,
  initializeRequest,
  legacyMessage,
  modernRequest,
  probeRequest,
  readRpcResult,
  toolCallRequest,
} from './mcp-messages.js';

describe('the MCP requests of the doctor (MCP 2026-07-28 stateless requests, 2025 sessions)', () => {
  it('sends server/discover with the _meta envelope and the headers the server compares with it', () => {
    const { body, headers } = discoverRequest();
    expect(JSON.parse(body)).toMatchObject({
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    expect(headers).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' });
  });

  it('names the tool of a stateless call in Mcp-Name, Base64-encoded when it is not plain ASCII', () => {
    expect(modernRequest('tools/call', { name: 'notes_create' }).headers['mcp-name']).toBe('notes_create');
    expect(modernRequest('tools/call', { name: 'café' }).headers['mcp-name']).toBe(
      `=?base64?${Buffer.from('café').toString('base64')}?=`,
    );
    expect(modernRequest('tools/call', { name: ' padded' }).headers['mcp-name']).toMatch(/^=\?base64\?/);
  });

  it('opens a 2025 conversation without MCP-Protocol-Version, then sends the chosen version and the session', () => {
    expect(initializeRequest().headers).toEqual({});
    const era = { kind: 'legacy', protocolVersion: '2025-06-18', sessionId: 's-1' } as const;
    const call = toolCallRequest(era, 'notes_create');
    expect(call.headers).toEqual({ 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': 's-1' });
    expect(JSON.parse(call.body)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'notes_create', arguments: {} },
    });
    expect(JSON.parse(legacyMessage(era, 'notifications/initialized').body)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/initialized',
    });
  });

  it('probes with server/discover until the server is known to speak the 2025 era', () => {
    expect(JSON.parse(probeRequest(undefined).body).method).toBe('server/discover');
    expect(JSON.parse(probeRequest({ kind: 'modern' }).body).method).toBe('server/discover');
    expect(JSON.parse(probeRequest({ kind: 'legacy', protocolVersion: '2025-11-25' }).body).method).toBe(
      'initialize',
    );
  });

  it('reads the result from a JSON body or from the event of an SSE stream, and nothing from an error', async () => {
    const result = { supportedVersions: ['2026-07-28'] };
    const json = new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result }), {
      headers: { 'content-type': 'application/json' },
    });
    expect(await readRpcResult(json)).toEqual(result);
    const stream = new Response(
      `event: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n` +
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`,
      { headers: { 'content-type': 'text/event-stream' } },
    );
    expect(await readRpcResult(stream)).toEqual(result);
    const error = new Response(
      JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } }),
      {
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(await readRpcResult(error)).toBeUndefined();
    expect(await readRpcResult(new Response('<html></html>'))).toBeUndefined();
  });
});
