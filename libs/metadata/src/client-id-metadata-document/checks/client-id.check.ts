/*
 * draft-ietf-oauth-client-id-metadata-document-00 section 4.1: "The client metadata document MUST contain a
 * client_id property whose value MUST match the URL of the document using simple string comparison as defined in
 * [RFC3986] Section 6.2.1" - no case folding, no default-port elision, no percent-decoding, no trailing-slash
 * normalisation (the later draft: `https://example.com/client` and `https://example.com:443/client` differ).
 * Section 3: that URL must itself be a Client Identifier URL.
 */
import { clientIdMetadataUrlProblem } from '../client-id-metadata-url.check.js';
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

/**
 * `client_id` is present and is exactly the URL the document was fetched from, which is a Client Identifier URL.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export const checkClientId: ClientIdMetadataDocumentCheck = (document, { clientIdUrl }) => {
  const found = [];
  const clientId = document['client_id'];
  if (clientIdUrl !== undefined) {
    const problem = clientIdMetadataUrlProblem(clientIdUrl);
    if (problem !== undefined) {
      found.push(
        violation('client_id_url_invalid', `The document URL is not a Client Identifier URL: it ${problem}`),
      );
    }
  }
  if (clientId === undefined) {
    found.push(violation('client_id_missing', 'client_id is REQUIRED', ['client_id']));
  } else if (clientIdUrl !== undefined && clientId !== clientIdUrl) {
    found.push(
      violation('client_id_mismatch', 'client_id must equal the document URL by simple string comparison', [
        'client_id',
      ]),
    );
  } else if (clientIdUrl === undefined) {
    const problem = typeof clientId === 'string' ? clientIdMetadataUrlProblem(clientId) : 'is not a string';
    if (problem !== undefined) {
      found.push(
        violation('client_id_url_invalid', `client_id is not a Client Identifier URL: it ${problem}`, [
          'client_id',
        ]),
      );
    }
  }
  return found;
};
