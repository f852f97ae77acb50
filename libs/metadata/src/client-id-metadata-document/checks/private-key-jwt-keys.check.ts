/*
 * draft-ietf-oauth-client-id-metadata-document-00 section 6.2: a client using `private_key_jwt` publishes its
 * public key "in their metadata document" (`jwks_uri` or `jwks`); the authorization server "MUST require client
 * authentication ... using the corresponding key discovered from the client's metadata document" (later draft).
 * Without either, no assertion from this client could ever be verified.
 */
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

/**
 * `private_key_jwt` comes with `jwks_uri` or `jwks`.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6.2
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.2
 */
export const checkPrivateKeyJwtHasKeys: ClientIdMetadataDocumentCheck = (document) => {
  if (document['token_endpoint_auth_method'] !== 'private_key_jwt') return [];
  if (document['jwks_uri'] !== undefined || document['jwks'] !== undefined) return [];
  return [
    violation('private_key_jwt_without_keys', 'private_key_jwt requires jwks_uri or jwks', [
      'token_endpoint_auth_method',
    ]),
  ];
};
