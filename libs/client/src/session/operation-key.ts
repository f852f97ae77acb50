/**
 * What "the same operation" means for step-up tracking.
 *
 * Rules kept here: MCP 2026-07-28 "Step-Up Authorization Flow": clients SHOULD track scope upgrade attempts per
 * resource and operation. An operation is the HTTP method and path, and for a JSON-RPC request (MCP over Streamable
 * HTTP) its `method` and the tool, prompt or resource it names, so `tools/call notes_create` and
 * `tools/call notes_list` are tracked apart.
 */

/**
 * A stable key for the operation a request performs.
 *
 * @see https://www.jsonrpc.org/specification#request_object
 */
export function operationKey(method: string, url: URL, body: Uint8Array | undefined): string {
  const base = `${method} ${url.pathname}`;
  if (body === undefined || body.byteLength === 0 || body.byteLength > 1_000_000) return base;
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return base;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return base;
  const { method: rpcMethod, params } = message as {
    method?: unknown;
    params?: { name?: unknown; uri?: unknown };
  };
  if (typeof rpcMethod !== 'string') return base;
  const target =
    typeof params?.name === 'string' ? params.name : typeof params?.uri === 'string' ? params.uri : undefined;
  return target === undefined ? `${base} ${rpcMethod}` : `${base} ${rpcMethod} ${target}`;
}
