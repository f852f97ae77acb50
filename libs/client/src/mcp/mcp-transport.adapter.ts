/**
 * The adapter between the authorized fetch and the official MCP TypeScript SDK (`@modelcontextprotocol/client`).
 *
 * The SDK's `StreamableHTTPClientTransport` takes a `fetch` option and sends every request of the session (POST,
 * GET for the event stream, DELETE) through it; with the authorized fetch there, the SDK never sees a 401 or an
 * `insufficient_scope` 403 the flow can answer, and keeps one MCP session across a token change (as the SDK's own
 * OAuth support does). Typed as the SDK's options shape, structurally, so this framework-free library does
 * not depend on the SDK.
 *
 * The client's capabilities declare the extension it obtains tokens with (MCP SEP-2133 "Negotiation": "Clients
 * advertise extension support in the `initialize` request"; under 2026-07-28 the SDK sends the same capabilities in
 * every request's `_meta`), as the ext-auth guides ask of a client using OAuth client credentials or
 * enterprise-managed authorization ("Declare support").
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

/** A JSON value as the SDK types one (RFC 8259), so the capabilities below fit its `ClientCapabilities`. */
type McpJsonValue = string | number | boolean | null | McpJsonValue[] | { [member: string]: McpJsonValue };

/**
 * The part of the SDK's `ClientCapabilities` this adapter sets: `extensions`, extension identifiers to their
 * settings objects (`{}` for none).
 *
 * @see https://modelcontextprotocol.io/seps/2133-extensions
 */
export interface McpClientCapabilities {
  extensions?: { [extensionId: string]: { [setting: string]: McpJsonValue } };
}

/**
 * Capabilities for `new Client(info, { capabilities: mcpClientCapabilities(authorizedFetch) })`: `capabilities`
 * (default none) with each of `authorizedFetch.declaredExtensions` added to `extensions` with no settings, unless
 * `capabilities` already declares it (its settings are kept). With no extension in use, `capabilities` unchanged.
 *
 * @see https://modelcontextprotocol.io/seps/2133-extensions
 * @see https://modelcontextprotocol.io/extensions/auth/oauth-client-credentials
 * @see https://modelcontextprotocol.io/extensions/auth/enterprise-managed-authorization
 */
export function mcpClientCapabilities<C extends McpClientCapabilities>(
  authorizedFetch: Pick<AuthorizedFetch, 'declaredExtensions'>,
  capabilities?: C,
): C | McpClientCapabilities {
  const declared = authorizedFetch.declaredExtensions;
  const base: C | McpClientCapabilities = capabilities ?? {};
  if (declared.length === 0) return base;
  return {
    ...base,
    extensions: { ...Object.fromEntries(declared.map((id) => [id, {}])), ...base.extensions },
  };
}
