/**
 * The MCP requests `portcullis doctor` sends, in each protocol era, with the HTTP headers each revision requires.
 *
 * Rules kept here:
 * - MCP 2026-07-28 (stateless): no handshake; every request carries its protocol version and the client's
 *   capabilities in `params._meta`, and over HTTP the `MCP-Protocol-Version`, `Mcp-Method` and (for a request naming
 *   a tool, prompt or resource) `Mcp-Name` headers, which the server compares with the body. `server/discover` is
 *   the request every such server answers and that changes nothing, so it is the probe.
 * - MCP 2025 era: `initialize` opens the conversation (without `MCP-Protocol-Version`, the version is negotiated in
 *   its body); every later request carries `MCP-Protocol-Version` with the negotiated version (2025-06-18 and later)
 *   and the `Mcp-Session-Id` the server gave, if any.
 * - An `Mcp-Name` value that is not plain printable ASCII is sent Base64-encoded between `=?base64?` and `?=`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header
 */
import { readText } from '../http/http.js';

/** The stateless revision the discovery probe speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** The version a 2025-era `initialize` asks for; the server may answer an older one. */
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

const CLIENT_INFO = { name: 'portcullis-doctor', version: '1.0.0' } as const;

/** Largest MCP response body read (bytes): a discovery or initialize result is a few KiB. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** A request body with the headers that go with it. */
export interface McpMessage {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Which protocol the server was found to speak, and for the 2025 era, the conversation it opened. */
export type McpEra =
  | { readonly kind: 'modern' }
  | { readonly kind: 'legacy'; readonly protocolVersion: string; readonly sessionId?: string };

const PRINTABLE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

function headerValue(value: string): string {
  return PRINTABLE_ASCII.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * A 2026-07-28 request: the `_meta` envelope in the body, the standard headers beside it.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports
 */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): McpMessage {
  const name = typeof params['name'] === 'string' ? params['name'] : params['uri'];
  return {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        },
      },
    }),
    headers: {
      'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': headerValue(name) } : {}),
    },
  };
}

/** `server/discover`: what a 2026-07-28 server answers with its versions and capabilities, changing nothing. */
export function discoverRequest(): McpMessage {
  return modernRequest('server/discover');
}

/**
 * The 2025-era handshake's first request, which any such server answers.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
 */
export function initializeRequest(): McpMessage {
  return {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    }),
    headers: {},
  };
}

/** The headers of every request after `initialize` in a 2025-era conversation. */
export function legacyHeaders(era: Extract<McpEra, { kind: 'legacy' }>): Record<string, string> {
  return {
    'mcp-protocol-version': era.protocolVersion,
    ...(era.sessionId === undefined ? {} : { 'mcp-session-id': era.sessionId }),
  };
}

/** A 2025-era request (or, without `id`, notification) inside the conversation `era` opened. */
export function legacyMessage(
  era: Extract<McpEra, { kind: 'legacy' }>,
  method: string,
  params?: Record<string, unknown>,
  id?: number,
): McpMessage {
  return {
    body: JSON.stringify({
      jsonrpc: '2.0',
      ...(id === undefined ? {} : { id }),
      method,
      ...(params === undefined ? {} : { params }),
    }),
    headers: legacyHeaders(era),
  };
}

/** The request that probes the server without changing anything, in the era it speaks (2026-07-28 until known). */
export function probeRequest(era: McpEra | undefined): McpMessage {
  return era?.kind === 'legacy' ? initializeRequest() : discoverRequest();
}

/** A `tools/call` of `tool` with no arguments, in the server's era. */
export function toolCallRequest(era: McpEra | undefined, tool: string): McpMessage {
  const params = { name: tool, arguments: {} };
  return era?.kind === 'legacy'
    ? legacyMessage(era, 'tools/call', params, 2)
    : modernRequest('tools/call', params, 2);
}

/**
 * The `result` of the JSON-RPC response in a body, sent as JSON or as the events of an SSE stream; `undefined` for
 * anything else (an error response, a body that is not JSON-RPC, one over the size limit).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
 */
export async function readRpcResult(response: Response): Promise<Record<string, unknown> | undefined> {
  const text = await readText(response, MAX_RESPONSE_BYTES);
  if (text === undefined) return undefined;
  const contentType = response.headers.get('content-type') ?? '';
  const payloads = contentType.toLowerCase().startsWith('text/event-stream') ? eventData(text) : [text];
  for (const payload of payloads) {
    const result = resultOf(payload);
    if (result !== undefined) return result;
  }
  return undefined;
}

/** The data of each event of an SSE stream (its `data:` lines joined). */
function eventData(stream: string): string[] {
  return stream.split(/\r?\n\r?\n/).map((event) =>
    event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice('data:'.length).replace(/^ /, ''))
      .join('\n'),
  );
}

function resultOf(payload: string): Record<string, unknown> | undefined {
  try {
    const message: unknown = JSON.parse(payload);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
    const result = (message as { result?: unknown }).result;
    return typeof result === 'object' && result !== null && !Array.isArray(result)
      ? (result as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
