/**
 * Reading the protected resource's `Bearer` (or `DPoP`) challenge.
 *
 * Rules kept here:
 * - MCP 2025-06-18 "Authorization Server Location", 2026-07-28 "Protected Resource Metadata Discovery
 *   Requirements" and RFC 9728 Section 5.1: a 401 carries `WWW-Authenticate: Bearer resource_metadata="…"`;
 *   clients MUST parse it.
 * - RFC 6750 Section 3: `error` (`invalid_token`, `insufficient_scope`, ...) and `scope` are auth-params of the
 *   `Bearer` challenge. RFC 9449 Section 7.1: a resource that accepts DPoP sends a `DPoP` challenge with the same
 *   parameters, beside the `Bearer` one or alone (MCP SEP-1932), so both are read: each parameter from the first
 *   challenge that has it, the scheme the client presented its token with first, then `Bearer`, then `DPoP`.
 *   Other schemes in the same field are ignored, but every scheme the field challenges with is recorded: a
 *   resource that challenges with `DPoP` says it accepts DPoP-bound tokens (RFC 9449 Section 7.1), whatever its
 *   metadata lists.
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
  /** Every authentication scheme the field challenges with, lower-cased (`bearer`, `dpop`, ...). */
  readonly schemes?: readonly string[];
}

const SCHEMES = ['bearer', 'dpop'];

/**
 * The `Bearer` and `DPoP` challenges of a response's `WWW-Authenticate` field, read as one (see above), or
 * `undefined` when there is neither. `presentedScheme` is the scheme the request's token went with, if any.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
export function readBearerChallenge(
  response: Response,
  presentedScheme?: string,
): BearerChallenge | undefined {
  const header = response.headers.get('www-authenticate');
  if (header === null) return undefined;
  const preferred = presentedScheme?.toLowerCase();
  const rank = (scheme: string): number => (scheme === preferred ? -1 : SCHEMES.indexOf(scheme));
  const parsed = parseWwwAuthenticate(header);
  const challenges = parsed
    .filter((challenge) => SCHEMES.includes(challenge.scheme))
    .sort((a, b) => rank(a.scheme) - rank(b.scheme));
  if (challenges.length === 0) return undefined;
  const schemes = [...new Set(parsed.map((challenge) => challenge.scheme))];
  const param = (name: string): string | undefined =>
    challenges.map((challenge) => challenge.params[name]).find((value) => value !== undefined);
  const resourceMetadata = param('resource_metadata');
  const scope = param('scope');
  const error = param('error');
  return {
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    ...(scope === undefined ? {} : { scope: parseScopeLeniently(scope) }),
    ...(error === undefined ? {} : { error }),
    schemes,
  };
}

function parseScopeLeniently(value: string): readonly string[] | undefined {
  try {
    return parseScope(value);
  } catch {
    return undefined;
  }
}
