/**
 * Decides an MCP request's scopes from its JSON-RPC content, before the MCP SDK sees it, so that a call without
 * the scope is an HTTP 403 with the step-up challenge (MCP 2026-07-28 "Runtime Insufficient Scope Errors") instead
 * of a JSON-RPC error the client's authorization layer would never see.
 *
 * Rules kept here:
 * - `tools/call`: the tool's scopes (TOOL_SCOPES); a name no tool has needs only a valid token, because the SDK
 *   answers it with an error and no tool can exist outside the table.
 * - `resources/read`, `resources/list`: `notes:read`.
 * - TOKEN_ONLY_METHODS, notifications and responses: a valid token.
 * - Any other method: every scope (fail closed).
 * - A batch (JSON array, 2025-03-26) needs the union of its messages' scopes (MCP 2026-07-28 "Runtime Insufficient
 *   Scope Errors": all in one challenge).
 * - A body that is not JSON-RPC needs a valid token; the SDK then answers it with a JSON-RPC error.
 */
import { Injectable } from '@nestjs/common';
import type { RequiredScopesResolver } from '@portcullis/resource-server/nest';
import {
  isNotesTool,
  RESOURCE_SCOPES,
  TOKEN_ONLY_METHODS,
  TOOL_SCOPES,
  UNCLASSIFIED_METHOD_SCOPES,
} from './mcp-scopes.js';

function scopesOfMessage(message: unknown): readonly string[] {
  if (typeof message !== 'object' || message === null) return [];
  const { method, params } = message as { method?: unknown; params?: unknown };
  // A notification or request has a method; a client's response to a server request has none.
  if (typeof method !== 'string') return [];
  if (method.startsWith('notifications/') || TOKEN_ONLY_METHODS.has(method)) return [];
  if (method === 'tools/call') {
    const name = (params as { name?: unknown } | undefined)?.name;
    return isNotesTool(name) ? TOOL_SCOPES[name] : [];
  }
  if (method === 'resources/read' || method === 'resources/list') return RESOURCE_SCOPES;
  return UNCLASSIFIED_METHOD_SCOPES;
}

/**
 * The scopes an MCP request body needs.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1 (insufficient_scope)}
 */
export function mcpRequiredScopes(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return [...new Set(messages.flatMap(scopesOfMessage))];
}

/** The MCP endpoint's per-request scope decision, for `@ResolveScopes`. */
@Injectable()
export class McpScopeResolver implements RequiredScopesResolver<{ body?: unknown }> {
  requiredScopes(request: { body?: unknown }): string[] {
    return mcpRequiredScopes(request.body);
  }
}
