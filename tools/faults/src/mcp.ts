/** An MCP `tools/call` over Streamable HTTP in the 2026-07-28 (stateless) era, and its JSON-RPC answer. */

export interface ToolAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The tool result, when the request got one. */
  readonly result?: { isError?: boolean; content?: { type: string; text?: string }[] };
  readonly error?: unknown;
}

export async function callTool(
  mcpUrl: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
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
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'portcullis-faults', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, headers: response.headers };
  const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice('data: '.length)
    : text;
  const message = JSON.parse(json ?? '{}') as { result?: ToolAnswer['result']; error?: unknown };
  return {
    status: response.status,
    headers: response.headers,
    ...(message.result ? { result: message.result } : {}),
    ...(message.error ? { error: message.error } : {}),
  };
}
