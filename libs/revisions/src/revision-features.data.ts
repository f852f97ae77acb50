/**
 * The behaviours that differ between revisions of the MCP authorization specification, and where each one is
 * written down. Which revision has which feature is not recorded here: each revision lists its own features in
 * `revisions.data.ts`, so a new revision never edits this file unless it brings a new feature.
 *
 * Citations name the two spec files of this repository: `authorization-flow.md` (the spec; section 9 is the
 * revision table) and `details.md` (its "Revisions" table fills in what section 9 leaves out).
 */

/**
 * A behaviour that one revision of the MCP authorization specification has and another lacks. Feature code asks
 * `revision.supports(feature)` instead of comparing revision dates.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export type RevisionFeature =
  | 'client-id-metadata-documents'
  | 'dynamic-client-registration'
  | 'dynamic-client-registration-deprecated'
  | 'openid-connect-discovery'
  | 'metadata-issuer-check'
  | 'iss-validation'
  | 'prm-well-known-fallback'
  | 'scope-challenge'
  | 'step-up-authorization'
  | 'scope-union-on-reauthorization'
  | 'dcr-application-type'
  | 'credential-issuer-binding'
  | 'refresh-token-guidance'
  | 'authorization-extensions';

/**
 * What a feature means and the spec text it comes from.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export interface RevisionFeatureDescription {
  /** What a revision with this feature does, in one sentence. */
  readonly summary: string;
  /** The spec passages the feature is taken from, quoted with their location. */
  readonly sources: readonly string[];
}

/** The description of every feature; typed as a total record so a feature without a description cannot compile. */
export const FEATURE_DESCRIPTIONS: { readonly [F in RevisionFeature]: RevisionFeatureDescription } = {
  'client-id-metadata-documents': {
    summary:
      'Clients may use an HTTPS URL as client_id (a Client ID Metadata Document) when the authorization server ' +
      'advertises client_id_metadata_document_supported: true.',
    sources: [
      'authorization-flow.md §9, row "Client ID Metadata Documents": earlier "absent", later "SHOULD be ' +
        'supported; one of three registration mechanisms".',
      'authorization-flow.md §1.6: "Client ID Metadata Documents (SHOULD be supported by authorization servers ' +
        'and clients)".',
      'details.md "Revisions", row "client ID": later "priority: pre-registered, then CIMD if the AS says ' +
        '`client_id_metadata_document_supported: true`, then DCR (deprecated, MAY), then ask the user".',
    ],
  },
  'dynamic-client-registration': {
    summary: 'Clients may register with an RFC 7591 Dynamic Client Registration request.',
    sources: [
      'authorization-flow.md §9, row "Dynamic Client Registration": earlier "SHOULD be supported", later "MAY ' +
        'be supported; deprecated".',
      'details.md "Revisions", row "client ID": earlier "pre-registration or DCR (DCR SHOULD)", later "... then ' +
        'DCR (deprecated, MAY) ...".',
    ],
  },
  'dynamic-client-registration-deprecated': {
    summary:
      'Dynamic Client Registration is deprecated: a MAY, tried only after pre-registration and Client ID ' +
      'Metadata Documents.',
    sources: [
      'authorization-flow.md §9, row "Dynamic Client Registration": later "MAY be supported; deprecated".',
      'authorization-flow.md §1.6: "Dynamic Client Registration (MAY be supported; deprecated, kept for ' +
        'authorization servers lacking Client ID Metadata Documents)".',
    ],
  },
  'openid-connect-discovery': {
    summary:
      'Authorization server metadata is discovered through RFC 8414 and OpenID Connect Discovery 1.0 well-known ' +
      'URLs, in the order of details.md; without it only the RFC 8414 URL is used.',
    sources: [
      'authorization-flow.md §9, row "Authorization server discovery": earlier "RFC 8414 metadata required and ' +
        'used", later "RFC 8414 or the service Connect Discovery; clients support both".',
      'details.md "Revisions", row "AS discovery": earlier "RFC 8414 only", later "RFC 8414 and OIDC Discovery, ' +
        'in the order below".',
      'details.md "Authorization server metadata discovery": "Under 2025-06-18 only the RFC 8414 URL is used."',
    ],
  },
  'metadata-issuer-check': {
    summary:
      'The issuer of fetched authorization server metadata must equal, byte for byte, the issuer its well-known ' +
      'URL was built from, or the document is not used.',
    sources: [
      'details.md "Revisions", row "AS metadata `issuer` check": earlier "none", later "the document\'s `issuer` ' +
        'MUST equal the issuer the well-known URL was built from, byte for byte, or the document is not used".',
    ],
  },
  'iss-validation': {
    summary:
      'The client validates the RFC 9207 iss parameter of the authorization response (spec 5.5) before ' +
      'redeeming the code.',
    sources: [
      'authorization-flow.md §9, row "iss validation (RFC 9207)": earlier "absent", later "required ' +
        'client-side".',
      'authorization-flow.md §5.5: "The client MUST apply this before sending the code to any token endpoint."',
      'details.md "Revisions", row "`iss` (RFC 9207)": earlier "none", later "client MUST validate (table in the ' +
        'spec, 5.5) before redeeming the code".',
    ],
  },
  'prm-well-known-fallback': {
    summary:
      'Without resource_metadata in the 401 challenge, the client tries the path-inserted then the root ' +
      'protected resource metadata well-known URL; without the feature the header parameter is mandatory.',
    sources: [
      'details.md "Revisions", row "PRM discovery": earlier "`resource_metadata` in the 401 WWW-Authenticate ' +
        'header is mandatory", later "header when present; else path-inserted well-known, then root well-known".',
      'details.md "Protected Resource Metadata (RFC 9728)": "Client without `resource_metadata` in the challenge ' +
        '(2026-07-28): try the path-inserted URL, then the root one."',
    ],
  },
  'scope-challenge': {
    summary:
      'Challenges carry a scope parameter that clients treat as authoritative, and clients choose initial ' +
      'scopes by the scope selection strategy (challenge, then scopes_supported, then none).',
    sources: [
      'authorization-flow.md §9, row "Scope selection strategy, step-up flow, insufficient_scope response": ' +
        'earlier "absent", later "present".',
      'authorization-flow.md §5.3.1: "Servers SHOULD include a scope parameter in WWW-Authenticate ... clients ' +
        'MUST treat the challenged scopes as authoritative for the current operation."',
      'authorization-flow.md §5.3.2: "Initial scope priority for clients (SHOULD): (a) the scope parameter of ' +
        'the initial 401 challenge; (b) otherwise all of scopes_supported; (c) omit scope if scopes_supported ' +
        'is undefined."',
    ],
  },
  'step-up-authorization': {
    summary:
      'A 403 insufficient_scope challenge leads the client to re-authorize for the missing scopes and retry a ' +
      'bounded number of times.',
    sources: [
      'authorization-flow.md §9, row "Scope selection strategy, step-up flow, insufficient_scope response": ' +
        'earlier "absent", later "present".',
      'authorization-flow.md §3.2 "Step-up authorization flow" and §7.1 "Insufficient scope response".',
      'details.md "Revisions", row "scopes": later "scope selection, `insufficient_scope` step-up with the union ' +
        'of scopes, retry limit".',
    ],
  },
  'scope-union-on-reauthorization': {
    summary:
      'On re-authorization the client requests the union of the scopes it had and the scopes of the current ' +
      'challenge.',
    sources: [
      'authorization-flow.md §3.2.2: "Compute the required scopes as the union of the client\'s previously ' +
        'requested scopes and the scopes of the current challenge."',
      'authorization-flow.md §5.3.3: "On re-authorization, clients SHOULD include the challenged scopes ' +
        'together with previously granted scopes."',
      'details.md "Revisions", row "scopes": later "... step-up with the union of scopes ...".',
    ],
  },
  'dcr-application-type': {
    summary:
      'Dynamic Client Registration requests carry application_type: native for loopback or custom-scheme ' +
      'redirects, web otherwise.',
    sources: [
      'details.md "Revisions", row "DCR request": earlier "plain RFC 7591", later "MUST send `application_type` ' +
        '(`native` for loopback or custom-scheme redirects, else `web`)".',
    ],
  },
  'credential-issuer-binding': {
    summary:
      'Client credentials are keyed by authorization server issuer, never sent to another one, and the client ' +
      're-registers when the protected resource points to a new authorization server.',
    sources: [
      'details.md "Revisions", row "credentials binding": earlier "none", later "stored or pre-registered client ' +
        'credentials are keyed by issuer; never sent to another AS; re-register when the PRM points to a new AS".',
    ],
  },
  'refresh-token-guidance': {
    summary:
      'The full refresh token rules of spec 5.4 apply (offline_access only when the authorization server lists ' +
      'it; never assume a refresh token); without the feature only rotation for public clients is required.',
    sources: [
      'authorization-flow.md §9, row "Refresh token guidance": earlier "rotation for public clients only", ' +
        'later "full section (5.4)".',
      'details.md "Revisions", row "refresh": earlier "rotation for public clients", later "full 5.4: ' +
        '`offline_access` only if the AS lists it; RS SHOULD NOT list `offline_access` in PRM or challenges".',
    ],
  },
  'authorization-extensions': {
    summary:
      'Authorization extensions (reverse-DNS named, optional, additive, composable, independently versioned) ' +
      'may be offered and used.',
    sources: [
      'authorization-flow.md §9, row "Authorization extensions": earlier "absent", later "optional, additive, ' +
        'composable, independently versionable".',
      'details.md "Extensions": "Optional, additive, composable, versioned on their own, named by reverse-DNS ' +
        'identifiers."',
    ],
  },
};
