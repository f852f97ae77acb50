/*
 * draft-ietf-oauth-client-id-metadata-document-00 section 4.1: "the client_secret and client_secret_expires_at
 * properties MUST NOT be used". A document is public: any secret in it is already disclosed. Presence is what is
 * refused, whatever the value (`null` and `0` included).
 */
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

const FORBIDDEN = ['client_secret', 'client_secret_expires_at'] as const;

/**
 * Neither `client_secret` nor `client_secret_expires_at` is present.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export const checkNoClientSecret: ClientIdMetadataDocumentCheck = (document) =>
  FORBIDDEN.filter((member) => Object.hasOwn(document, member)).map((member) =>
    violation('client_secret_forbidden', `${member} MUST NOT be used in a Client ID Metadata Document`, [
      member,
    ]),
  );
