/**
 * Reading the protected resource's `Bearer` challenge.
 *
 * Rules kept here:
 * - MCP 2025-06-18 "Authorization Server Location", 2026-07-28 "Protected Resource Metadata Discovery
 *   Requirements" and RFC 9728 Section 5.1: a 401 carries `WWW-Authenticate: Bearer resource_metadata="…"`;
 *   clients MUST parse it.
 * - RFC 6750 Section 3: `error` (`invalid_token`, `insufficient_scope`, ...) and `scope` are auth-params of the
 *   `Bearer` challenge; other schemes in the same field are ignored.
 * - MCP 2026-07-28 "Scope Selection Strategy": the challenged scopes are authoritative for the operation; a
 *   malformed `scope` value is treated as absent rather than guessed at.
 */
import { parseScope, parseWwwAuthenticate } from '@portcullis/protocol';

/**
 * The parts of a `Bearer` challenge the flow uses.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export interface BearerChallenge {
  /** `resource_metadata`: where the Protected Resource Metadata is. */
  readonly resourceMetadata?: string;
  /** `scope`, split into scope-tokens; `undefined` when absent or malformed. */
  readonly scope?: readonly string[];
  /** `error`, e.g. `invalid_token` or `insufficient_scope`. */
  readonly error?: string;
}

/**
 * The first `Bearer` challenge of a response's `WWW-Authenticate` field, or `undefined` when there is none.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 */
export function readBearerChallenge(response: Response): BearerChallenge | undefined {
  const header = response.headers.get('www-authenticate');
  if (header === null) return undefined;
  const bearer = parseWwwAuthenticate(header).find((challenge) => challenge.scheme === 'bearer');
  if (bearer === undefined) return undefined;
  const { resource_metadata: resourceMetadata, scope, error } = bearer.params;
  return {
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    ...(scope === undefined ? {} : { scope: parseScopeLeniently(scope) }),
    ...(error === undefined ? {} : { error }),
  };
}

function parseScopeLeniently(value: string): readonly string[] | undefined {
  try {
    return parseScope(value);
  } catch {
    return undefined;
  }
}
