/*
 * draft-ietf-oauth-client-id-metadata-document-00 section 4.1: "the token_endpoint_auth_method property MUST NOT
 * include client_secret_post, client_secret_basic, client_secret_jwt, or any other method based around a shared
 * symmetric secret". Any method named `client_secret_*` is treated as one. An absent method is not refused here
 * although RFC 7591 2 would default it to `client_secret_basic`: no secret can exist for such a client, so the
 * authorization server treats it as `none` (a public client).
 */
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

/**
 * `token_endpoint_auth_method` is not a shared-secret method.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export const checkNoSharedSecretAuthMethod: ClientIdMetadataDocumentCheck = (document) => {
  const method = document['token_endpoint_auth_method'];
  if (typeof method !== 'string' || !method.startsWith('client_secret_')) return [];
  return [
    violation(
      'shared_secret_auth_method',
      `token_endpoint_auth_method "${method}" relies on a shared secret`,
      ['token_endpoint_auth_method'],
    ),
  ];
};
