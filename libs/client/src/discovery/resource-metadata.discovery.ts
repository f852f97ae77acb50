/**
 * Finding and checking a protected resource's metadata (RFC 9728).
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Protected Resource Metadata Discovery Requirements" (2025-06-18: "Authorization Server
 *   Location"): the `resource_metadata` URL of the 401 challenge is used when present. Without it, 2026-07-28 tries
 *   the path-inserted well-known URL, then the root one (RFC 9728 Section 3.1); 2025-06-18 requires the header.
 * - RFC 9728 Section 3.1 and our choice (as for authorization server metadata): a 4xx moves on to the next URL; a
 *   5xx or network failure is an error. Redirects are not followed.
 * - RFC 9728 Section 3.3: the document's `resource` MUST be identical to the resource the client is talking to:
 *   for the header URL and the path-inserted URL, the resource being called; for the root URL, the identifier that
 *   URL was built from (the origin), which is also accepted when it names the resource being called. Otherwise the
 *   client stops before any authorization request (`resource_mismatch`). Identifiers are compared in canonical
 *   form (MCP "Canonical Server URI": implementations SHOULD accept uppercase scheme and host); the value sent on
 *   later requests is the one the document publishes, unchanged.
 * - MCP "Authorization Server Location": `authorization_servers` has at least one entry (enforced by the schema).
 */
import {
  ProtectedResourceMetadataSchema,
  findUrlProblem,
  type ProtectedResourceMetadata,
} from '@portcullis/metadata';
import { canonicalizeResourceUri, protectedResourceMetadataUrls } from '@portcullis/protocol';
import type { Revision } from '@portcullis/revisions';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { FetchLike } from '../http/http.js';
import type { BearerChallenge } from './bearer-challenge.js';
import { fetchMetadataDocument } from './metadata-document.js';
import { schemaFailure } from './schema-failure.js';

/**
 * A protected resource's metadata, with where it came from.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.2
 */
export interface DiscoveredResourceMetadata {
  readonly metadata: ProtectedResourceMetadata;
  /** The URL the document was fetched from. */
  readonly url: string;
  /** The `resource` exactly as the document publishes it: the value sent as the `resource` parameter. */
  readonly resource: string;
}

/** A URL where a resource's metadata may be, with the resources its document may name. */
export interface ResourceMetadataCandidate {
  readonly url: string;
  /** Canonical identifiers the document's `resource` may equal for this URL (RFC 9728 Section 3.3). */
  readonly acceptedResources: readonly string[];
}

/**
 * The URLs to try, in order, each with the resources its document may name.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.3
 */
export function resourceMetadataCandidates(
  resource: string,
  challenge: BearerChallenge | undefined,
  revision: Revision,
): ResourceMetadataCandidate[] {
  const called = canonicalizeResourceUri(resource);
  if (challenge?.resourceMetadata !== undefined) {
    const problem = findUrlProblem(challenge.resourceMetadata, {
      schemes: ['https', 'http'],
      httpsUnlessLoopback: true,
    });
    if (problem !== undefined) {
      throw new PortcullisError(
        'unsafe_endpoint',
        `The resource named an unusable metadata URL (${problem}): ${challenge.resourceMetadata}`,
        { url: challenge.resourceMetadata, urlProblem: problem },
      );
    }
    return [{ url: challenge.resourceMetadata, acceptedResources: [called] }];
  }
  if (!revision.supports('prm-well-known-fallback')) {
    throw new PortcullisError(
      'resource_metadata_missing',
      `${resource} answered 401 without a resource_metadata URL, which revision ${revision.id} requires.`,
      { resource },
    );
  }
  const urls = protectedResourceMetadataUrls(called);
  const origin = canonicalizeResourceUri(new URL(called).origin);
  return urls.map((url, index) => ({
    url,
    // The last URL is the root one, built from the origin.
    acceptedResources: index === urls.length - 1 ? [origin, called] : [called],
  }));
}

/**
 * Fetches the resource's Protected Resource Metadata in the order of MCP 2026-07-28 "Protected Resource Metadata
 * Discovery Requirements" and checks its `resource`.
 * Throws `resource_metadata_missing`, `resource_metadata_unavailable`, `invalid_resource_metadata`,
 * `unsafe_endpoint` or `resource_mismatch`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 */
export async function discoverResourceMetadata(input: {
  resource: string;
  challenge: BearerChallenge | undefined;
  revision: Revision;
  fetch: FetchLike;
}): Promise<DiscoveredResourceMetadata> {
  const candidates = resourceMetadataCandidates(input.resource, input.challenge, input.revision);
  const tried: string[] = [];
  for (const candidate of candidates) {
    tried.push(candidate.url);
    const answer = await fetchMetadataDocument(input.fetch, candidate.url);
    if (answer.kind === 'absent') continue;
    if (answer.kind === 'unavailable') {
      throw answer.status === undefined
        ? new PortcullisError(
            'resource_metadata_unavailable',
            `Could not fetch the resource metadata at ${candidate.url}.`,
            { url: candidate.url },
            { cause: answer.cause },
          )
        : new PortcullisError(
            'resource_metadata_unavailable',
            `The resource metadata at ${candidate.url} answered HTTP ${answer.status}.`,
            { url: candidate.url, status: answer.status },
          );
    }
    return checkResourceMetadata(answer.body, candidate, input.resource);
  }
  throw new PortcullisError(
    'resource_metadata_unavailable',
    `No resource metadata found for ${input.resource} (tried ${tried.join(', ')}).`,
    { resource: input.resource, tried },
  );
}

/**
 * The checks of a fetched document: schema (and safe URLs), then `resource` against the candidate's accepted
 * identifiers. Throws `invalid_resource_metadata`, `unsafe_endpoint` or `resource_mismatch`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.3
 */
export function checkResourceMetadata(
  body: Record<string, unknown> | undefined,
  candidate: ResourceMetadataCandidate,
  calledResource: string,
): DiscoveredResourceMetadata {
  const parsed = ProtectedResourceMetadataSchema.safeParse(body);
  if (!parsed.success) {
    throw schemaFailure(parsed.error, 'invalid_resource_metadata', 'resource metadata', candidate.url);
  }
  const published = parsed.data.resource;
  let canonical: string | undefined;
  try {
    canonical = canonicalizeResourceUri(published);
  } catch {
    canonical = undefined;
  }
  if (canonical === undefined || !candidate.acceptedResources.includes(canonical)) {
    throw new PortcullisError(
      'resource_mismatch',
      `The resource metadata at ${candidate.url} is for ${published}, not for ${calledResource}; ` +
        'refusing to authorize (RFC 9728 Section 3.3).',
      { url: candidate.url, published, expected: calledResource },
    );
  }
  return { metadata: parsed.data, url: candidate.url, resource: published };
}
