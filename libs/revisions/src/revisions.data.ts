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
 * The known revisions, oldest first. This list is the one place revisions are defined: adding one is one entry here
 * plus its column in the table test of `revisions.spec.ts`.
 *
 * Sources: the MCP authorization pages of each revision (the `specification` URLs below) and the "Key Changes" of
 * each revision, which list what changed since the one before
 * (https://modelcontextprotocol.io/specification/2025-11-25/changelog and
 * https://modelcontextprotocol.io/specification/2026-07-28/changelog).
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
    id: '2025-11-25',
    specification: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization',
    // Absent here, added by 2026-07-28 (https://modelcontextprotocol.io/specification/2026-07-28/changelog, minor
    // changes 8 and 9, and the deprecation of registration in its authorization "Overview"): a deprecated Dynamic
    // Client Registration (here a MAY "included for backwards compatibility", not deprecated), application_type in
    // registrations (SEP-837), credentials bound to the issuer (SEP-2352), the union of scopes on re-authorization
    // (here step-up determines scopes by the "Scope Selection Strategy" alone) and the "Refresh Tokens" section
    // (here "Token Theft" asks only rotation for public clients). This revision does not mention RFC 9207 `iss`
    // either (minor change 7 of 2026-07-28, SEP-2468); its check, like the RFC 8414 Section 3.3 issuer match, is an
    // RFC rule applied in every revision, not a feature (see docs/authorization-server.md).
    features: [
      // Changelog major change 8 (SEP-991): "Client ID Metadata Documents", SHOULD for clients and servers,
      // advertised by client_id_metadata_document_supported.
      'client-id-metadata-documents',
      // "Dynamic Client Registration": MAY, after pre-registration and metadata documents in the priority order.
      'dynamic-client-registration',
      // Changelog major change 1 (PR #797): "Authorization Server Metadata Discovery" tries RFC 8414 and OpenID
      // Connect Discovery URLs in priority order.
      'openid-connect-discovery',
      // Changelog minor change 8 (SEP-985): "Protected Resource Metadata Discovery Requirements", the challenge's
      // resource_metadata when present, else the path-inserted then the root well-known URL.
      'prm-well-known-fallback',
      // Changelog major change 3 (SEP-835): the challenge's scope is authoritative ("Scope Selection Strategy"),
      // and 403 insufficient_scope leads to step-up ("Scope Challenge Handling", "Step-Up Authorization Flow").
      'scope-challenge',
      'step-up-authorization',
      // "MCP Authorization Extensions": optional, additive, composable, versioned independently.
      'authorization-extensions',
    ],
  },
  {
    id: '2026-07-28',
    specification: 'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization',
    features: [
      'client-id-metadata-documents',
      'dynamic-client-registration',
      'dynamic-client-registration-deprecated',
      'openid-connect-discovery',
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
