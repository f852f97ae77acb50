/**
 * The MCP SDK's view of a request's authorization, built from the resource server's `AuthInfo`.
 *
 * Rules kept here:
 * - Spec 5.1 (5), RFC 9700 Section 4.10: the SDK's `AuthInfo` type has a `token` member; it is always empty here,
 *   so no tool handler can pass the client's token to an upstream API.
 * - The owner of every note is the token's `sub`; a handler reached without one refuses to run.
 */
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import type { AuthInfo } from '@portcullis/resource-server';

const SUBJECT = 'subject';

/** The SDK auth info for a request whose token the resource server accepted. */
export function toMcpAuthInfo(auth: AuthInfo, resource: string, resourceMetadataUrl: string): McpAuthInfo {
  return {
    token: '',
    clientId: auth.clientId,
    scopes: [...auth.scopes],
    expiresAt: auth.expiresAt,
    resource: new URL(resource),
    resourceMetadataUrl,
    extra: { [SUBJECT]: auth.subject, issuer: auth.issuer },
  };
}

/**
 * The token subject a request acts for.
 *
 * @throws Error when the request carries no validated auth info (never expected behind the bearer guard).
 */
export function subjectOf(authInfo: McpAuthInfo | undefined): string {
  const subject = authInfo?.extra?.[SUBJECT];
  if (typeof subject !== 'string' || subject === '')
    throw new Error('MCP request without an authenticated subject');
  return subject;
}
