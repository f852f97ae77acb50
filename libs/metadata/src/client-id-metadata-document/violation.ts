/**
 * The stable code of each rule a Client ID Metadata Document can break. Callers branch on these, never on the
 * message text.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export type ClientIdMetadataDocumentRule =
  /** The document is not a JSON object. */
  | 'document_not_object'
  /** The URL the document was fetched from is not a Client Identifier URL. */
  | 'client_id_url_invalid'
  /** `client_id` is absent. */
  | 'client_id_missing'
  /** `client_id` is not exactly the URL the document was fetched from. */
  | 'client_id_mismatch'
  /** `client_name` is absent, not a string, or blank. */
  | 'client_name_missing'
  /** `client_name` contains a bidirectional control or a zero-width character. */
  | 'client_name_invisible_characters'
  /** `redirect_uris` is absent, not an array, or empty. */
  | 'redirect_uris_missing'
  /** A redirect URI is not a string or not a valid absolute URL. */
  | 'redirect_uri_invalid'
  /** A redirect URI is neither https, nor http on a loopback host, nor of an allowed private-use scheme. */
  | 'redirect_uri_insecure'
  /** A redirect URI has a fragment. */
  | 'redirect_uri_fragment'
  /** `client_secret` or `client_secret_expires_at` is present. */
  | 'client_secret_forbidden'
  /** `token_endpoint_auth_method` is a shared-secret method. */
  | 'shared_secret_auth_method'
  /** A key in `jwks` carries private or symmetric key material. */
  | 'jwks_private_key'
  /** `private_key_jwt` without `jwks_uri` or `jwks` to verify it with. */
  | 'private_key_jwt_without_keys'
  /** Both `jwks_uri` and `jwks` are present. */
  | 'jwks_and_jwks_uri'
  /** Any other member breaks the client metadata schema (wrong type, refused URL, ...). */
  | 'invalid_metadata';

/**
 * One broken rule: its stable code, a sentence for logs and operators, and where in the document it is.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export interface ClientIdMetadataDocumentViolation {
  readonly rule: ClientIdMetadataDocumentRule;
  readonly message: string;
  /** Path of the offending member (`['redirect_uris', 1]`); empty for the document as a whole. */
  readonly path: readonly (string | number)[];
}

/** What a check knows besides the document. */
export interface ClientIdMetadataDocumentCheckContext {
  /**
   * The URL the document was fetched from. Absent when only the document is at hand (schema parsing): then the
   * document's own `client_id` is checked as a Client Identifier URL.
   */
  readonly clientIdUrl?: string;
  /**
   * The private-use redirect URI schemes the authorization server allows (RFC 8252 7.1), lowercase; none when
   * absent.
   */
  readonly privateUseSchemes?: readonly string[];
}

/** One rule: returns every violation of it, or an empty array. */
export type ClientIdMetadataDocumentCheck = (
  document: Readonly<Record<string, unknown>>,
  context: ClientIdMetadataDocumentCheckContext,
) => ClientIdMetadataDocumentViolation[];

/** Shorthand for building a violation. */
export function violation(
  rule: ClientIdMetadataDocumentRule,
  message: string,
  path: readonly (string | number)[] = [],
): ClientIdMetadataDocumentViolation {
  return { rule, message, path };
}
