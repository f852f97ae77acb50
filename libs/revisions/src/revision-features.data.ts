/**
 * The behaviours that differ between revisions of the MCP authorization specification, and where each one is
 * written down. Which revision has which feature is not recorded here: each revision lists its own features in
 * `revisions.data.ts`, so a new revision never edits this file unless it brings a new feature.
 *
 * Citations are public URLs a reader can open: the section of the MCP authorization specification of the revision
 * that has the feature (`https://modelcontextprotocol.io/specification/<revision>/basic/authorization...#<anchor>`;
 * an earlier revision's section where it shows what a revision without the feature does), or an RFC section
 * (`https://www.rfc-editor.org/rfc/rfcNNNN#section-N`).
 */

/**
 * A behaviour that one revision of the MCP authorization specification has and another lacks. Feature code asks
 * `revision.supports(feature)` instead of comparing revision dates. A rule of an RFC the MCP specification builds
 * on holds in every revision and is no feature: the issuer match of RFC 8414 Section 3.3 and the `iss` check of
 * RFC 9207 Section 2.4 are applied whatever the revision
 * (https://www.rfc-editor.org/rfc/rfc8414#section-3.3, https://www.rfc-editor.org/rfc/rfc9207#section-2.4).
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export type RevisionFeature =
  | 'client-id-metadata-documents'
  | 'dynamic-client-registration'
  | 'dynamic-client-registration-deprecated'
  | 'openid-connect-discovery'
  | 'prm-well-known-fallback'
  | 'scope-challenge'
  | 'step-up-authorization'
  | 'scope-union-on-reauthorization'
  | 'dcr-application-type'
  | 'credential-issuer-binding'
  | 'refresh-token-guidance'
  | 'authorization-extensions';

/**
 * What a feature means and the spec sections it comes from.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export interface RevisionFeatureDescription {
  /** What a revision with this feature does, in one sentence. */
  readonly summary: string;
  /**
   * Public URLs of the spec sections the feature is taken from: a section of the MCP authorization specification
   * of a revision no later than the feature's newest revision, or an RFC section.
   */
  readonly sources: readonly string[];
}

/** The description of every feature; typed as a total record so a feature without a description cannot compile. */
export const FEATURE_DESCRIPTIONS: { readonly [F in RevisionFeature]: RevisionFeatureDescription } = {
  'client-id-metadata-documents': {
    summary:
      'Clients may use an HTTPS URL as client_id (a Client ID Metadata Document) when the authorization server ' +
      'advertises client_id_metadata_document_supported: true.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents',
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#discovery',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#client-registration',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#client-id-metadata-documents',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#advertising-cimd-support',
    ],
  },
  'dynamic-client-registration': {
    summary: 'Clients may register with an RFC 7591 Dynamic Client Registration request.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#dynamic-client-registration',
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#dynamic-client-registration',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#dynamic-client-registration',
    ],
  },
  'dynamic-client-registration-deprecated': {
    summary:
      'Dynamic Client Registration is deprecated, kept for authorization servers without Client ID Metadata ' +
      'Documents; without the feature it is a registration mechanism like the others, not deprecated.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#dynamic-client-registration',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#dynamic-client-registration',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#client-registration',
    ],
  },
  'openid-connect-discovery': {
    summary:
      'Authorization server metadata is discovered through RFC 8414 and OpenID Connect Discovery 1.0 well-known ' +
      'URLs, in the priority order of the MCP spec; without it only the RFC 8414 URL is used.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#server-metadata-discovery',
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-metadata-discovery',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#authorization-server-metadata-discovery',
      'https://www.rfc-editor.org/rfc/rfc8414#section-5',
    ],
  },
  'prm-well-known-fallback': {
    summary:
      'Without resource_metadata in the 401 challenge, the client tries the path-inserted then the root ' +
      'protected resource metadata well-known URL; without the feature the header parameter is mandatory.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#authorization-server-location',
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#protected-resource-metadata-discovery-requirements',
      'https://www.rfc-editor.org/rfc/rfc9728#section-3.1',
    ],
  },
  'scope-challenge': {
    summary:
      'Challenges carry a scope parameter that clients treat as authoritative, and clients choose initial ' +
      'scopes by the scope selection strategy (challenge, then scopes_supported, then none).',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements',
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-selection-strategy',
      'https://www.rfc-editor.org/rfc/rfc6750#section-3',
    ],
  },
  'step-up-authorization': {
    summary:
      'A 403 insufficient_scope challenge leads the client to re-authorize for the missing scopes and retry a ' +
      'bounded number of times.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#step-up-authorization-flow',
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#step-up-authorization-flow',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#runtime-insufficient-scope-errors',
      'https://www.rfc-editor.org/rfc/rfc6750#section-3.1',
    ],
  },
  'scope-union-on-reauthorization': {
    summary:
      'On re-authorization the client requests the union of the scopes it had and the scopes of the current ' +
      'challenge.',
    sources: [
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#step-up-authorization-flow',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-selection-strategy',
    ],
  },
  'dcr-application-type': {
    summary:
      'Dynamic Client Registration requests carry application_type: native for loopback or custom-scheme ' +
      'redirects, web otherwise.',
    sources: [
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#application-type-and-redirect-uri-constraints',
    ],
  },
  'credential-issuer-binding': {
    summary:
      'Client credentials are keyed by authorization server issuer, never sent to another one, and the client ' +
      're-registers when the protected resource points to a new authorization server.',
    sources: [
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#authorization-server-binding',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#authorization-server-location',
    ],
  },
  'refresh-token-guidance': {
    summary:
      'The full rules of the MCP "Refresh Tokens" section apply (offline_access only when the authorization ' +
      'server lists it; never assume a refresh token); without the feature only rotation for public clients is ' +
      'required.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#token-theft',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#refresh-tokens',
    ],
  },
  'authorization-extensions': {
    summary:
      'Authorization extensions (reverse-DNS named, optional, additive, composable, independently versioned) ' +
      'may be offered and used.',
    sources: [
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#mcp-authorization-extensions',
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#mcp-authorization-extensions',
    ],
  },
};
