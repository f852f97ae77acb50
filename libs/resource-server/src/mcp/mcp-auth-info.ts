/**
 * The official MCP TypeScript SDK's view of a validated token (`AuthInfo` of `@modelcontextprotocol/server`, what its
 * tool handlers read as `ctx.http.authInfo`), built from the resource server's own {@link AuthInfo}.
 *
 * Rules kept here:
 * - MCP "Access Token Privilege Restriction", RFC 9700 Section 4.10: the SDK's type has a `token` member; it is
 *   always empty, so no handler can pass the client's token on to an upstream API.
 * - RFC 8707 Section 2: `resource` is this resource's canonical URI, the audience the token was checked for, so the
 *   SDK's own `expectedResource` comparison agrees with ours.
 * - MCP 2026-07-28 "Step-Up Authorization Flow": `scopes` are the granted scopes with every scope they imply by the
 *   configured hierarchy, so an exact-match scope check (the SDK's `requiredScopes`) honours a broader grant; the
 *   scopes as granted are in `extra.grantedScopes`.
 * - RFC 9728 Section 5.1: `resourceMetadataUrl` is the metadata URL the challenges name.
 */
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import { expandScopes } from '@portcullis/protocol';
import type { AuthInfo } from '../auth/auth-info.js';
import { carryPresentedToken } from '../exchange/presented-token.js';
import type { ResourceServerConfig } from '../config/resource-server.config.js';

/**
 * What the resource server adds to the SDK's `AuthInfo.extra`.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-2.2 RFC 9068 Section 2.2}
 */
export interface McpAuthInfoExtra {
  /** The resource owner: `sub`. */
  readonly subject: string;
  /** The authorization server that issued the token: `iss`. */
  readonly issuer: string;
  readonly audience: readonly string[];
  /** The scopes as granted, before the hierarchy is applied. */
  readonly grantedScopes: readonly string[];
  readonly validatedBy: 'jwt' | 'introspection';
  readonly tokenId?: string;
}

/**
 * The SDK's `AuthInfo` of an accepted token.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#access-token-privilege-restriction MCP Access Token Privilege Restriction}
 */
export function toMcpAuthInfo(
  auth: AuthInfo,
  config: Pick<ResourceServerConfig, 'resource' | 'metadataUrl' | 'scopeHierarchy'>,
): McpAuthInfo {
  const extra: McpAuthInfoExtra = {
    subject: auth.subject,
    issuer: auth.issuer,
    audience: [...auth.audience],
    grantedScopes: [...auth.scopes],
    validatedBy: auth.validatedBy,
    ...(auth.tokenId !== undefined ? { tokenId: auth.tokenId } : {}),
  };
  const view: McpAuthInfo = {
    token: '',
    clientId: auth.clientId,
    scopes: expandScopes(auth.scopes, config.scopeHierarchy),
    expiresAt: auth.expiresAt,
    resource: new URL(config.resource),
    resourceMetadataUrl: config.metadataUrl,
    extra: { ...extra },
  };
  // `upstreamToken(view, ...)` exchanges the request's token without any handler holding it.
  carryPresentedToken(auth, view);
  return view;
}
