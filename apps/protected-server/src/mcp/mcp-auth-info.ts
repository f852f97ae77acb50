/**
 * The MCP SDK's view of a request's authorization, built from the resource server's `AuthInfo`.
 *
 * Rules kept here:
 * - MCP "Access Token Privilege Restriction", RFC 9700 Section 4.10: the SDK's `AuthInfo` type has a `token`
 *   member; it is always empty here, so no tool handler can pass the client's token to an upstream API.
 * - The owner of every note and session is the token's issuer and `sub` together; a handler reached without both
 *   refuses to run.
 */
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import { carryPresentedToken, type AuthInfo } from '@portcullis/resource-server';
import type { Owner } from '../notes/owner.js';

const SUBJECT = 'subject';
const ISSUER = 'issuer';

/** The SDK auth info for a request whose token the resource server accepted. */
export function toMcpAuthInfo(auth: AuthInfo, resource: string, resourceMetadataUrl: string): McpAuthInfo {
  const view: McpAuthInfo = {
    token: '',
    clientId: auth.clientId,
    scopes: [...auth.scopes],
    expiresAt: auth.expiresAt,
    resource: new URL(resource),
    resourceMetadataUrl,
    extra: { [SUBJECT]: auth.subject, [ISSUER]: auth.issuer },
  };
  // So that `upstreamToken(view, ...)` can exchange the request's token, which no handler holds.
  carryPresentedToken(auth, view);
  return view;
}

/**
 * The user a request acts for: its token's issuer and subject.
 *
 * @throws Error when the request carries no validated auth info (never expected behind the bearer guard).
 */
export function ownerOf(authInfo: McpAuthInfo | undefined): Owner {
  const subject = authInfo?.extra?.[SUBJECT];
  const issuer = authInfo?.extra?.[ISSUER];
  if (typeof subject !== 'string' || subject === '' || typeof issuer !== 'string' || issuer === '') {
    throw new Error('MCP request without an authenticated issuer and subject');
  }
  return { issuer, subject };
}
