/**
 * Fetching the Protected Resource Metadata at one URL for `portcullis doctor`, with the SDK's own discovery pieces
 * (`resourceMetadataCandidates`, `fetchMetadataDocument`, `checkResourceMetadata`), so that the doctor accepts and
 * refuses exactly what the client does, and reports each URL on its own line.
 *
 * Rules kept here (the SDK's, see `discovery/resource-metadata.discovery.ts`): RFC 9728 3.1, the path-inserted and
 * root well-known URLs and the challenge's; a 4xx is "nothing published", a redirect or 5xx an error; RFC 9728 3.3,
 * `resource` is the server's URL, or at the root URL its origin unless the challenge sent clients there.
 */
import { LATEST_REVISION, getRevision } from '@portcullis/revisions';
import { fetchMetadataDocument } from '../discovery/metadata-document.js';
import {
  checkResourceMetadata,
  resourceMetadataCandidates,
  type ResourceMetadataCandidate,
} from '../discovery/resource-metadata.discovery.js';
import { PortcullisError } from '../errors/portcullis-error.js';
import { MAX_JSON_BODY_BYTES } from '../http/http.js';
import { finding, type CheckStatus, type Finding } from './doctor-check.js';
import { describeFailure, type DoctorContext, type ResourceMetadataLocation } from './doctor-context.js';
import { REFERENCES } from './references.js';

/** The revision whose discovery order the doctor follows: the latest, the one with the well-known fallback. */
const REVISION = getRevision(LATEST_REVISION);

/** The well-known URLs of the server: the path-inserted one (for a server at a path) and the root one. */
export function wellKnownCandidates(context: DoctorContext): {
  pathAware?: ResourceMetadataCandidate;
  root: ResourceMetadataCandidate;
} {
  const candidates = resourceMetadataCandidates(context.server, undefined, REVISION);
  const root = candidates[candidates.length - 1];
  if (root === undefined) throw new Error('no well-known URL for the resource');
  const fromChallenge = context.challenge?.params['resource_metadata'];
  // A client sent to the root URL by the challenge accepts there only a document naming the server itself.
  const rootCandidate =
    fromChallenge === root.url ? { url: root.url, acceptedResources: [context.resource] } : root;
  const pathAware = candidates.length > 1 ? candidates[0] : undefined;
  return pathAware === undefined ? { root: rootCandidate } : { pathAware, root: rootCandidate };
}

/** The challenge's `resource_metadata` as a candidate; `undefined` when absent or not a URL a client may fetch. */
export function challengeCandidate(context: DoctorContext): ResourceMetadataCandidate | undefined {
  const url = context.challenge?.params['resource_metadata'];
  if (url === undefined) return undefined;
  try {
    return resourceMetadataCandidates(context.server, { resourceMetadata: url }, REVISION)[0];
  } catch {
    return undefined;
  }
}

/**
 * Fetches and checks the document at `candidate`, records it in the context under `location` when usable, and says
 * what was found; `missing` is the status of a URL where nothing is published.
 */
export async function probeResourceMetadata(
  context: DoctorContext,
  location: ResourceMetadataLocation,
  candidate: ResourceMetadataCandidate,
  missing: CheckStatus,
): Promise<Finding> {
  const { url } = candidate;
  const answer = await fetchMetadataDocument(context.fetch, url);
  if (answer.kind === 'absent') {
    return finding(missing, `Nothing at ${url} (HTTP ${answer.status}).`, REFERENCES.prmWellKnown);
  }
  if (answer.kind === 'unavailable') {
    return finding('fail', `${url}: ${unavailable(answer)}`, REFERENCES.prmWellKnown);
  }
  if (answer.body === undefined) {
    return finding('fail', `${url}: ${notAnObject()}`, REFERENCES.prmWellKnown);
  }
  try {
    const found = checkResourceMetadata(answer.body, candidate, context.server);
    context.resourceMetadata.set(location, { url, metadata: found.metadata });
    return finding('pass', `${url} names resource "${found.resource}".`, REFERENCES.prmResource);
  } catch (error) {
    if (error instanceof PortcullisError && error.code === 'resource_mismatch') {
      return finding(
        'fail',
        `${url} names resource "${String(error.details['published'])}", not ${context.resource}: clients must refuse it.`,
        REFERENCES.prmResource,
      );
    }
    return finding(
      'fail',
      `${url} is not valid Protected Resource Metadata: ${describeFailure(error)}`,
      REFERENCES.prmWellKnown,
    );
  }
}

/** Why a metadata URL gave nothing usable: no answer, a redirect or another status. */
export function unavailable(answer: { status?: number; cause?: unknown }): string {
  if (answer.status === undefined) return `no answer (${describeFailure(answer.cause)}).`;
  const redirect = answer.status >= 300 && answer.status < 400;
  return `HTTP ${answer.status}${redirect ? ' (a redirect; clients do not follow it)' : ''}.`;
}

/** Why a 200 gave nothing usable. */
export function notAnObject(): string {
  return `the body is not a JSON object of at most ${MAX_JSON_BODY_BYTES / 1024} KiB.`;
}
