/**
 * Finding and checking an authorization server's metadata.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Authorization Server Metadata Discovery": RFC 8414 and OpenID Connect Discovery URLs in the
 *   order `authorizationServerMetadataUrls` gives; under 2025-06-18 only the RFC 8414 URL (its "Server Metadata
 *   Discovery"; revision feature `openid-connect-discovery`). Our choice: a 4xx moves on to the next URL; a 5xx or
 *   network failure is an error. Redirects are not followed.
 * - RFC 8414 Section 3.3 (and MCP 2026-07-28 "Authorization Server Metadata Discovery", which repeats it), under
 *   every revision, since each one discovers the server through RFC 8414: the document's `issuer` MUST equal the
 *   issuer the well-known URL was built from, byte for byte, or the document is not used (`issuer_mismatch`; the
 *   flow stops there rather than trusting a later URL of the same server). One equivalence is accepted,
 *   `https://as.example/` for `https://as.example` (RFC 3986 Section 6.2.3: the same URI and the same well-known
 *   URL; stock servers publish exactly this), and the document's `issuer` is recorded from there on.
 * - MCP 2026-07-28 "Authorization Code Protection": without `S256` in `code_challenge_methods_supported` the
 *   client MUST refuse to proceed (`pkce_unsupported`).
 * - MCP 2026-07-28 "Authorization Response Validation": the issuer recorded for the `iss` check is taken only from
 *   the validated metadata document.
 * - MCP "Communication Security", RFC 6819 4.4.1.5: endpoints are https (http only on loopback) and never
 *   `javascript:` and the like (the metadata schema; `unsafe_endpoint`).
 */
import type { AuthorizationServerMetadata } from '@portcullis/metadata';
import {
  PKCE_METHOD_S256,
  authorizationServerMetadataUrls,
  cacheLifetimeSeconds,
} from '@portcullis/protocol';
import type { Revision } from '@portcullis/revisions';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { FetchLike } from '../http/http.js';
import { fetchMetadataDocument, parseAuthorizationServerMetadata } from './metadata-document.js';

/**
 * An authorization server whose metadata passed every check.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.2
 */
export interface DiscoveredAuthorizationServer {
  /** The issuer recorded for this server: the validated document's `issuer`. */
  readonly issuer: string;
  readonly metadata: AuthorizationServerMetadata;
  /** The URL the document was fetched from. */
  readonly url: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /**
   * How long the fetched document may be used without fetching it again, in seconds (RFC 9111 Section 4.2, as a
   * private cache: its `Cache-Control` or `Expires`, else an hour, at most a day; 0 for `no-store`).
   */
  readonly cacheSeconds?: number;
}

/** A client's bounds on how long it keeps an authorization server's metadata (RFC 9111 Section 4.2). */
const METADATA_CACHE = {
  minCacheSeconds: 0,
  maxCacheSeconds: 86_400,
  defaultCacheSeconds: 3_600,
  sharedCache: false,
} as const;

/**
 * Fetches and checks an authorization server's metadata. Throws `metadata_unavailable`, `invalid_metadata`,
 * `unsafe_endpoint`, `issuer_mismatch` or `pkce_unsupported`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfig
 */
export async function discoverAuthorizationServer(input: {
  issuer: string;
  revision: Revision;
  fetch: FetchLike;
}): Promise<DiscoveredAuthorizationServer> {
  const { issuer, revision } = input;
  let urls: string[];
  try {
    urls = authorizationServerMetadataUrls(issuer, {
      openIdConnect: revision.supports('openid-connect-discovery'),
    });
  } catch (cause) {
    throw new PortcullisError(
      'invalid_metadata',
      `"${issuer}" is not a usable issuer identifier.`,
      { issuer },
      { cause },
    );
  }
  for (const url of urls) {
    const answer = await fetchMetadataDocument(input.fetch, url);
    if (answer.kind === 'absent') continue;
    if (answer.kind === 'unavailable') {
      throw answer.status === undefined
        ? new PortcullisError(
            'metadata_unavailable',
            `Could not fetch the authorization server metadata at ${url}.`,
            { url, issuer },
            { cause: answer.cause },
          )
        : new PortcullisError(
            'metadata_unavailable',
            `The authorization server metadata at ${url} answered HTTP ${answer.status}.`,
            { url, issuer, status: answer.status },
          );
    }
    const cacheSeconds = cacheLifetimeSeconds(
      Object.fromEntries(
        ['cache-control', 'expires', 'date', 'age'].map((name) => [
          name,
          answer.headers.get(name) ?? undefined,
        ]),
      ),
      METADATA_CACHE,
    );
    return { ...checkAuthorizationServerMetadata(answer.body, { url, issuer }), cacheSeconds };
  }
  throw new PortcullisError(
    'metadata_unavailable',
    `No authorization server metadata found for ${issuer} (tried ${urls.join(', ')}).`,
    { issuer, tried: urls },
  );
}

/**
 * The checks of a fetched document, in order: schema (and safe URLs), issuer, S256, endpoints (MCP 2026-07-28
 * "Authorization Server Metadata Discovery", "Authorization Code Protection", "Communication Security").
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.3
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.2
 */
export function checkAuthorizationServerMetadata(
  body: Record<string, unknown> | undefined,
  context: { url: string; issuer: string },
): DiscoveredAuthorizationServer {
  const { url, issuer } = context;
  const metadata = parseAuthorizationServerMetadata(body, { url, issuer });
  if (!metadata.code_challenge_methods_supported?.includes(PKCE_METHOD_S256)) {
    throw new PortcullisError(
      'pkce_unsupported',
      `The authorization server ${issuer} does not advertise S256 PKCE; refusing to proceed.`,
      { issuer, url },
    );
  }
  const { authorization_endpoint: authorizationEndpoint, token_endpoint: tokenEndpoint } = metadata;
  if (authorizationEndpoint === undefined || tokenEndpoint === undefined) {
    throw new PortcullisError(
      'invalid_metadata',
      `The authorization server ${issuer} publishes no ${authorizationEndpoint === undefined ? 'authorization' : 'token'} endpoint.`,
      { issuer, url },
    );
  }
  if (!metadata.response_types_supported.includes('code')) {
    throw new PortcullisError(
      'invalid_metadata',
      `The authorization server ${issuer} does not support response_type=code.`,
      {
        issuer,
        url,
      },
    );
  }
  return { issuer: metadata.issuer, metadata, url, authorizationEndpoint, tokenEndpoint };
}
