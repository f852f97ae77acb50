/*
 * Client ID Metadata Document, draft-ietf-oauth-client-id-metadata-document-00 section 4.1: client metadata
 * (RFC 7591 2) served at the client's https `client_id` URL. Its rules are the checks in
 * `client-id-metadata-document/checks/` (one rule per file): this schema runs every one of them that does not
 * need the fetch URL. The one that does (client_id equals the URL it was fetched from) needs
 * `validateClientIdMetadataDocument`, which an authorization server must use instead of this schema.
 */
import { z } from 'zod';
import { CLIENT_ID_METADATA_DOCUMENT_CHECKS } from '../client-id-metadata-document/checks/index.js';
import { clientMetadataShape } from './client-metadata.schema.js';

/**
 * The member types of a Client ID Metadata Document, without its rules. `client_id`, `client_name` and
 * `redirect_uris` are plain here because their rules (and their messages) belong to the checks.
 */
export const clientIdMetadataDocumentObject = z.looseObject({
  ...clientMetadataShape,
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
});

/**
 * A Client ID Metadata Document with every rule that the document alone can show: required members,
 * https/loopback redirect URIs without fragment, no client secret, no shared-secret authentication method, only
 * public keys, keys for `private_key_jwt`, `client_id` a Client Identifier URL. Each rule's issue carries its
 * stable code in `params.rule`. Checking `client_id` against the fetch URL needs
 * {@link validateClientIdMetadataDocument}.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export const ClientIdMetadataDocumentSchema = clientIdMetadataDocumentObject.superRefine((document, ctx) => {
  for (const check of CLIENT_ID_METADATA_DOCUMENT_CHECKS) {
    for (const { rule, message, path } of check(document, {})) {
      ctx.addIssue({ code: 'custom', message, path: [...path], params: { rule } });
    }
  }
});

/**
 * A parsed Client ID Metadata Document.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export type ClientIdMetadataDocument = z.infer<typeof ClientIdMetadataDocumentSchema>;
