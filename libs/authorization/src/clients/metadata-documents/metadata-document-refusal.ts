/**
 * Why a client ID metadata document was not used. Stable codes for logs and tests; the client is only ever told
 * that the client is unknown (RFC 6749 4.1.2.1 at the authorization endpoint, `invalid_client` at the token one).
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.3
 */
export type MetadataDocumentRefusalReason =
  /** The host resolved to a special-use address (loopback, private, link-local, ...), or to none. */
  | 'address_refused'
  /** The host name did not resolve. */
  | 'dns_failed'
  /** Connection, TLS or protocol failure. */
  | 'network'
  /** A 3xx: redirects are not followed. */
  | 'redirect'
  /** Any status but 200. */
  | 'status'
  /** Content-Length or the body itself passed the size limit. */
  | 'too_large'
  /** The fetch did not finish within the time limit. */
  | 'timeout'
  /** The body is not UTF-8 JSON, or not a JSON object. */
  | 'not_json'
  /** The document breaks a rule of the draft or of this server. */
  | 'invalid_document';

/**
 * A fetch or a document the authorization server refuses. Its message is for the log, never for the client.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.3
 */
export class MetadataDocumentRefusal extends Error {
  override readonly name = 'MetadataDocumentRefusal';

  constructor(
    readonly reason: MetadataDocumentRefusalReason,
    message: string,
  ) {
    super(message);
  }
}
