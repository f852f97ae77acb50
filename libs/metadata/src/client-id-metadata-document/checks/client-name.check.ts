/*
 * MCP authorization (2026-07-28), "Client ID Metadata Documents", "Implementation Requirements": "The metadata
 * document MUST include at least the following properties: client_id, client_name, redirect_uris". A blank name
 * counts as missing: the consent screen would have nothing to show but the URL (draft-00 section 6.4, phishing).
 * A name with a bidirectional control or a zero-width character is refused: the consent screen would show
 * something other than what the name says (the rule of client-name.schema.ts, shared with dynamic registration;
 * RFC 7591 section 5).
 */
import { describeInvisibleCharacter, findInvisibleCharacter } from '../../schemas/client-name.schema.js';
import { violation, type ClientIdMetadataDocumentCheck } from '../violation.js';

/**
 * `client_name` is a non-blank string without bidirectional controls or zero-width characters.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6.4
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-5
 */
export const checkClientName: ClientIdMetadataDocumentCheck = (document) => {
  const name = document['client_name'];
  if (typeof name !== 'string' || name.trim() === '') {
    return [
      violation('client_name_missing', 'client_name is REQUIRED and must be a non-blank string', [
        'client_name',
      ]),
    ];
  }
  const codePoint = findInvisibleCharacter(name);
  if (codePoint === undefined) return [];
  return [
    violation('client_name_invisible_characters', `client_name ${describeInvisibleCharacter(codePoint)}`, [
      'client_name',
    ]),
  ];
};
