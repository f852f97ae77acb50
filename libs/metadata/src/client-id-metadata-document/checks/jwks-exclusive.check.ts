/*
 * RFC 7591 section 2: "The jwks_uri and jwks parameters MUST NOT both be present in the same request or
 * response." A Client ID Metadata Document is client metadata (draft-00 section 4.1), so the rule applies.
 */
import { hasJwksAndJwksUri } from '../../schemas/client-metadata.schema.js';
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

/**
 * Not both `jwks_uri` and `jwks`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export const checkJwksExclusive: ClientIdMetadataDocumentCheck = (document) =>
  hasJwksAndJwksUri(document)
    ? [violation('jwks_and_jwks_uri', 'jwks_uri and jwks MUST NOT both be present', ['jwks'])]
    : [];
