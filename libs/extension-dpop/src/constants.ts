/**
 * `io.modelcontextprotocol/dpop`: DPoP sender-constrained tokens for MCP (MCP SEP-1932, RFC 9449).
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1932
 */
export const DPOP_EXTENSION_ID = 'io.modelcontextprotocol/dpop';

/** The HTTP authentication scheme of a DPoP-bound token (RFC 9449 section 7.1). */
export const DPOP_SCHEME = 'DPoP';

/**
 * The algorithms a DPoP proof may be signed with: asymmetric only (RFC 9449 section 4.3 item 5; RFC 8725 section
 * 3.1), the same list every Portcullis verifier uses.
 */
export { ASYMMETRIC_SIGNING_ALGORITHMS as DPOP_ALGORITHMS } from '@portcullis/protocol';

/** How far a proof's `iat` may be from now, in seconds, by default (RFC 9449 section 11.1 leaves it to the server). */
export const DEFAULT_PROOF_MAX_AGE = 60;
