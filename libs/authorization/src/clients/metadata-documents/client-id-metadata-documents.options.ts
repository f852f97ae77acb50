/**
 * One address a host name resolves to, as `dns.lookup(name, { all: true })` reports it.
 *
 * @see https://nodejs.org/api/dns.html#dnslookuphostname-options-callback
 */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
  /**
   * The port to connect to instead of the URL's. The system resolver never sets it; a test resolver does, to map
   * a client's real host (`https://claude.ai/...`, port 443) to a local server on an ephemeral port.
   */
  readonly port?: number;
}

/**
 * Resolves a host name to every address it has. The fetcher checks each one before it connects (DNS rebinding:
 * the address connected to is the address checked). The default is the system resolver.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6
 */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * What the document fetcher lets a host replace: the resolver and the TLS trust anchors. Never read from the
 * environment; tests use them to map names such as `evil.test` to chosen addresses (and ports) and to trust their
 * own CA.
 *
 * @see https://nodejs.org/api/tls.html#tlsconnectoptions-callback
 */
export interface MetadataDocumentFetchOverrides {
  readonly lookup?: HostLookup;
  /** PEM trust anchors replacing the system's (node:tls `ca`). */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
}

/**
 * Client ID Metadata Documents on the authorization server: a `client_id` that is an https URL names a document
 * the server fetches, validates and caches.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00
 */
export interface ClientIdMetadataDocumentsOptions {
  readonly enabled: boolean;
  /**
   * Development only, for a server that itself runs on loopback: documents may live on loopback addresses and
   * (on a loopback host) be served over plain http. Every other special-use address stays refused.
   */
  readonly allowLoopback?: boolean;
  readonly fetchOptions?: MetadataDocumentFetchOverrides;
}

/**
 * The fetch and cache limits (5 KiB: the CIMD draft's "Maximum Response Size"; about 2.5 s: our choice; cache
 * lifetimes within the server's own bounds, draft 4.4).
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 */
export interface MetadataDocumentLimits {
  /** Largest document accepted, in bytes. */
  readonly maxBytes: number;
  /** The whole fetch (resolution, connection, headers and body) must end within this. */
  readonly timeoutMs: number;
  /** Cache lifetime bounds, in seconds, whatever the document's cache headers say. */
  readonly minCacheSeconds: number;
  readonly maxCacheSeconds: number;
  /** Documents kept at most; the least recently used goes first. */
  readonly maxCacheEntries: number;
}

/**
 * The limits in force: 5 KiB, 2.5 s, cached between 1 minute and 24 hours, at most 1000 documents.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 */
export const METADATA_DOCUMENT_LIMITS: MetadataDocumentLimits = Object.freeze({
  maxBytes: 5 * 1024,
  timeoutMs: 2_500,
  minCacheSeconds: 60,
  maxCacheSeconds: 24 * 3600,
  maxCacheEntries: 1_000,
});
