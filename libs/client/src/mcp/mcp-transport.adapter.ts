/**
 * The adapter between the authorized fetch and the official MCP TypeScript SDK (`@modelcontextprotocol/client`).
 *
 * The SDK's `StreamableHTTPClientTransport` takes a `fetch` option and sends every request of the session (POST,
 * GET for the event stream, DELETE) through it; with the authorized fetch there, the SDK never sees a 401 or an
 * `insufficient_scope` 403 the flow can answer, and keeps one MCP session across a token change (as the SDK's own
 * OAuth support does). Typed as the SDK's options shape, structurally, so this framework-free library does
 * not depend on the SDK.
 */
import type { AuthorizedFetch } from '../authorized-fetch.js';
import type { FetchLike } from '../http/http.js';

/**
 * The subset of the SDK's `StreamableHTTPClientTransportOptions` this adapter sets.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
export interface McpTransportAuthorizationOptions {
  readonly fetch: FetchLike;
  readonly requestInit?: RequestInit;
}

/**
 * Options for `new StreamableHTTPClientTransport(new URL(resource), mcpTransportOptions(authorizedFetch))`. The SDK's
 * own `authProvider` must not be set as well: two flows would race for the same 401.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
export function mcpTransportOptions(
  authorizedFetch: AuthorizedFetch,
  options: { requestInit?: RequestInit } = {},
): McpTransportAuthorizationOptions {
  return {
    fetch: authorizedFetch,
    ...(options.requestInit === undefined ? {} : { requestInit: options.requestInit }),
  };
}
