/**
 * The `WWW-Authenticate` challenges of a refused request: `Bearer`, and the composed proof-of-possession scheme's
 * (`DPoP`) beside it.
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
 * - RFC 9449 Section 7.1, RFC 9110 Section 11.6.1: with a proof-of-possession extension composed, the field lists
 *   two challenges, `Bearer` first and then the extension's scheme with its own parameters (`algs`), both with the
 *   same `resource_metadata` and `scope`; `error` and `error_description` go on the challenge of the scheme the
 *   request used (RFC 9449 Section 7.1 example). One field value, comma-separated: clients that read only the
 *   first scheme and the first `resource_metadata=` still find the Bearer challenge's.
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
  /** The scheme the request presented its token with; its challenge carries the error. Default `bearer`. */
  readonly presentedWith?: 'bearer' | 'proof';
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

  const proof = input.extensions.resourceServerProofOfPossession();
  const errorOn = proof !== undefined && input.presentedWith === 'proof' ? 'proof' : 'bearer';
  const hostParams = (withError: boolean): Record<string, string> =>
    withError && error
      ? {
          error: error.code,
          ...scope,
          resource_metadata: input.metadataUrl,
          ...(error.description ? { error_description: error.description } : {}),
        }
      : { resource_metadata: input.metadataUrl, ...scope };

  const extensionParams =
    status === 400
      ? {}
      : input.extensions.challengeParameters({
          status,
          ...(error ? { error: error.code } : {}),
          resource: input.resource,
          revision: input.revision.id,
        });

  const bearer = formatWwwAuthenticate({
    scheme: 'Bearer',
    params: { ...hostParams(errorOn === 'bearer'), ...extensionParams },
  });
  if (proof === undefined) return bearer;

  // The scheme's own parameters (`algs`) after `error` and before the host's, which they never replace.
  const host = hostParams(errorOn === 'proof');
  const { error: errorCode, ...rest } = host;
  const params: Record<string, string> = errorCode === undefined ? {} : { error: errorCode };
  for (const [name, value] of Object.entries({ ...proof.challengeParameters, ...extensionParams })) {
    if (!Object.hasOwn(host, name)) params[name] = value;
  }
  Object.assign(params, rest);
  return `${bearer}, ${formatWwwAuthenticate({ scheme: proof.scheme, params })}`;
}
