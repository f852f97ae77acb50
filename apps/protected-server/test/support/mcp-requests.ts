/**
 * Raw MCP requests over HTTP, for tests that look at status codes and headers the SDK client would hide. Requests
 * use the 2026-07-28 (stateless) era unless a test opens a 2025-era session itself.
 */
import { parseWwwAuthenticate, type Challenge } from '@portcullis/protocol';
import type { ProtectedServer } from './protected-server.harness.js';

export const MODERN_REVISION = '2026-07-28';
export const LEGACY_REVISION = '2025-11-25';

/** A JSON-RPC request carrying the 2026-07-28 per-request envelope. */
export function modernMessage(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'portcullis-tests', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

/** The headers the 2026-07-28 era sends beside the envelope; none for a 2025-era message. */
function modernHeaders(body: unknown): Record<string, string> {
  const message = body as { method?: string; params?: { name?: string; uri?: string; _meta?: object } };
  const modern = message?.params?._meta && 'io.modelcontextprotocol/protocolVersion' in message.params._meta;
  if (typeof message?.method !== 'string' || !modern) return {};
  const name = message.params?.name ?? message.params?.uri;
  return {
    'mcp-protocol-version': MODERN_REVISION,
    'mcp-method': message.method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
}

export interface McpPostOptions {
  token?: string;
  headers?: Record<string, string>;
  query?: string;
}

/** POSTs a JSON-RPC body to the MCP endpoint. */
export function postMcp(
  app: ProtectedServer,
  body: unknown,
  options: McpPostOptions = {},
): Promise<Response> {
  return fetch(`${app.mcpUrl}${options.query ?? ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...modernHeaders(body),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
}

/** Opens a 2025-era session with `initialize` and `notifications/initialized`; returns its id. */
export async function openLegacySession(app: ProtectedServer, token: string): Promise<string> {
  const initialize = await postMcp(
    app,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_REVISION,
        capabilities: {},
        clientInfo: { name: 'portcullis-tests', version: '1' },
      },
    },
    { token },
  );
  const sessionId = initialize.headers.get('mcp-session-id');
  if (initialize.status !== 200 || !sessionId) throw new Error(`initialize failed with ${initialize.status}`);
  await initialize.body?.cancel();
  const initialized = await postMcp(
    app,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      token,
      headers: legacyHeaders(sessionId),
    },
  );
  if (initialized.status !== 202)
    throw new Error(`notifications/initialized failed with ${initialized.status}`);
  return sessionId;
}

/** The headers of a request inside a 2025-era session. */
export function legacyHeaders(sessionId: string): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_REVISION };
}

/** The JSON-RPC message of a 2025-era response, which may come as one SSE event. */
export async function legacyResult(response: Response): Promise<ToolResponse & { id?: unknown }> {
  if (response.status !== 200)
    throw new Error(`expected 200, got ${response.status}: ${await response.text()}`);
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  if (!data) throw new Error(`no data in SSE response ${text}`);
  return JSON.parse(data.slice('data: '.length));
}

/** Calls a tool in the 2026-07-28 era. */
export function callTool(
  app: ProtectedServer,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
) {
  return postMcp(app, modernMessage('tools/call', { name, arguments: args }), { token });
}

interface ToolResponse {
  result?: { content: { type: string; text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

/** The JSON-RPC response of a 200; fails the test on another status. */
export async function rpcResult(response: Response): Promise<ToolResponse> {
  if (response.status !== 200)
    throw new Error(`expected 200, got ${response.status}: ${await response.text()}`);
  return (await response.json()) as ToolResponse;
}

/** The parsed JSON text of a successful tool result. */
export async function toolJson<T>(response: Response): Promise<T> {
  const { result, error } = await rpcResult(response);
  if (error || !result || result.isError) throw new Error(`tool failed: ${JSON.stringify(error ?? result)}`);
  return JSON.parse(result.content[0]!.text) as T;
}

/** The single Bearer challenge of a response. */
export function bearerChallengeOf(response: Response): Challenge {
  const header = response.headers.get('www-authenticate');
  if (header === null) throw new Error(`no WWW-Authenticate on a ${response.status}`);
  const challenges = parseWwwAuthenticate(header).filter((challenge) => challenge.scheme === 'bearer');
  if (challenges.length !== 1) throw new Error(`expected one Bearer challenge in ${header}`);
  return challenges[0]!;
}

/** How many notes the database holds, for asserting that a refused request persisted nothing. */
export function countNotes(app: ProtectedServer): Promise<number> {
  return app.database.database.prisma.note.count();
}
