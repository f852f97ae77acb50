import { createRevisionCatalogue } from './revision-catalogue.js';
import type { RevisionFeature, RevisionFeatureDescription } from './revision-features.data.js';
import { REVISION_DEFINITIONS } from './revisions.data.js';

type IdsOf<T extends readonly { readonly id: string }[]> = {
  readonly [K in keyof T]: T[K] extends { readonly id: infer I } ? I : never;
};
type LastOf<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : never;

const catalogue = createRevisionCatalogue(REVISION_DEFINITIONS);

/**
 * The revisions of the MCP authorization specification this implementation knows, oldest first.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
export const REVISIONS = catalogue.ids as IdsOf<typeof REVISION_DEFINITIONS>;

/**
 * The id of a known revision: its date.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export type RevisionId = (typeof REVISIONS)[number];

/**
 * The newest known revision, the default for new clients and servers.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
export const LATEST_REVISION = catalogue.latest as LastOf<typeof REVISIONS>;

/**
 * A revision of the MCP authorization specification. Ask it whether it has a feature; never compare revision
 * dates in feature code.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
export interface Revision {
  readonly id: RevisionId;
  /**
   * Whether this revision has the feature. Throws on a name that is not a {@link RevisionFeature} (possible only
   * from untyped code), so a misspelling cannot read as "not supported".
   */
  supports(feature: RevisionFeature): boolean;
}

/**
 * A feature's documentation: what it means, the spec sections it comes from, and which revisions have it (derived
 * from each revision's own feature list).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
export interface RevisionFeatureInfo extends RevisionFeatureDescription {
  readonly revisions: readonly RevisionId[];
}

/**
 * Every feature with its meaning, its sources (URLs of the MCP authorization specification sections and RFC
 * sections it is taken from) and the revisions that have it.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
export const REVISION_FEATURES: { readonly [F in RevisionFeature]: RevisionFeatureInfo } = catalogue.features;

/**
 * Whether a value is the id of a known revision (exact match: no trimming, no case folding).
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#version-negotiation
 */
export function isRevisionId(value: unknown): value is RevisionId {
  return catalogue.isRevisionId(value);
}

/**
 * The revision with this id. Throws an `Error` naming the known revisions when the id is not one of them.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#version-negotiation
 */
export function getRevision(id: string): Revision {
  return catalogue.getRevision(id);
}
