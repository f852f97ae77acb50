import type { RevisionFeature } from './revision-features.data.js';

/**
 * One revision of the MCP authorization specification as data: its id and the complete list of features it has.
 * Each revision lists all its features (not a difference from the one before), so inserting a revision between
 * two others changes nothing for them.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export interface RevisionDefinition {
  /** The revision's date, as MCP names revisions. */
  readonly id: string;
  /** The authorization chapter of that revision. */
  readonly specification: string;
  /** Every feature the revision has. */
  readonly features: readonly RevisionFeature[];
}

/**
 * The known revisions, oldest first. This list is the one place revisions are defined: adding one (for example
 * `2025-11-25`) is one entry here plus its column in the table test of `revisions.spec.ts`.
 *
 * Sources: the MCP authorization pages of each revision (the `specification` URLs below) and the 2026-07-28
 * "Key Changes" (https://modelcontextprotocol.io/specification/2026-07-28/changelog#minor-changes), which lists
 * what changed; the earlier revision is `2025-06-18`, the later `2026-07-28`.
 */
export const REVISION_DEFINITIONS = [
  {
    id: '2025-06-18',
    specification: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization',
    // Dynamic Client Registration is a SHOULD here
    // (https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#dynamic-client-registration);
    // every other feature is absent from this revision.
    features: ['dynamic-client-registration'],
  },
  {
    id: '2026-07-28',
    specification: 'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization',
    features: [
      'client-id-metadata-documents',
      'dynamic-client-registration',
      'dynamic-client-registration-deprecated',
      'openid-connect-discovery',
      'metadata-issuer-check',
      'iss-validation',
      'prm-well-known-fallback',
      'scope-challenge',
      'step-up-authorization',
      'scope-union-on-reauthorization',
      'dcr-application-type',
      'credential-issuer-binding',
      'refresh-token-guidance',
      'authorization-extensions',
    ],
  },
] as const satisfies readonly RevisionDefinition[];
