/**
 * The `WWW-Authenticate: Bearer` challenge of a refused request.
 *
 * Rules kept here:
 * - RFC 6750 Section 3: the `Bearer` scheme; with no credentials in the request, no `error` (Section 3.1);
 *   otherwise `error` and `error_description`.
 * - MCP 2025-06-18 "Authorization Server Location", RFC 9728 Section 5.1: every challenge carries
 *   `resource_metadata`, the URL of this resource's metadata document (revision 2025-06-18 makes it the client's
 *   only way to find the document).
 * - MCP 2026-07-28 "Scope Selection Strategy", "Runtime Insufficient Scope Errors": `scope` lists every scope the
 *   operation needs in one challenge (never one at a time); on a 401 with nothing specific required it is
 *   `scopes_supported`. Only revisions with the `scope-challenge` feature send it. `offline_access` is never
 *   challenged (MCP 2026-07-28 "Refresh Tokens").
 * - Extensions may add parameters but never one the host keeps (the registry enforces it); values are quoted and
 *   escaped by `formatWwwAuthenticate` (RFC 9110 Section 11.2).
 */
import type { ExtensionRegistry } from '@portcullis/extensions';
import { formatWwwAuthenticate, type OAuthError } from '@portcullis/protocol';
import type { Revision } from '@portcullis/revisions';

/** What the challenge is built from. */
export interface BearerChallengeInput {
  readonly status: number;
  readonly error?: OAuthError;
  readonly requiredScopes: readonly string[];
  readonly resource: string;
  readonly metadataUrl: string;
  readonly scopesSupported: readonly string[];
  readonly revision: Revision;
  readonly extensions: ExtensionRegistry;
}

/**
 * The `WWW-Authenticate` value for a refused request, or `undefined` for statuses that carry no challenge.
 *
 * @example
 * ```ts
 * bearerChallenge({ status: 403, error: new OAuthError('insufficient_scope'), requiredScopes: ['notes:write'], ... });
 * // 'Bearer error="insufficient_scope", scope="notes:write", resource_metadata="https://…"'
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 */
export function bearerChallenge(input: BearerChallengeInput): string | undefined {
  const { status, error } = input;
  if (status !== 400 && status !== 401 && status !== 403) return undefined;

  const candidates =
    status === 401 && input.requiredScopes.length === 0 ? input.scopesSupported : input.requiredScopes;
  const scopes = candidates.filter((scope) => scope !== 'offline_access');
  const withScope = status !== 400 && scopes.length > 0 && input.revision.supports('scope-challenge');
  const scope: Record<string, string> = withScope ? { scope: scopes.join(' ') } : {};

  const params: Record<string, string> = error
    ? {
        error: error.code,
        ...scope,
        resource_metadata: input.metadataUrl,
        ...(error.description ? { error_description: error.description } : {}),
      }
    : { resource_metadata: input.metadataUrl, ...scope };

  if (status !== 400) {
    Object.assign(
      params,
      input.extensions.challengeParameters({
        status,
        ...(error ? { error: error.code } : {}),
        resource: input.resource,
        revision: input.revision.id,
      }),
    );
  }
  return formatWwwAuthenticate({ scheme: 'Bearer', params });
}
