/*
 * Redirect URIs of a Client ID Metadata Document:
 * - `redirect_uris` is REQUIRED and not empty (MCP 2026-07-28 "Client ID Metadata Documents");
 * - each is https, or http on a loopback host (MCP "Communication Security": "All redirect URIs MUST be either
 *   localhost or use HTTPS"; RFC 8252 7.3, 8.3), or a hierarchical URI of a private-use scheme the server allows
 *   (RFC 8252 7.1; none unless the caller names some); `javascript:`, `data:`, other schemes are refused;
 * - none has a fragment, not even an empty `#` (RFC 6749 3.1.2: "MUST NOT include a fragment component").
 * Every entry is checked and every broken rule reported: an entry that is both http on a public host and
 * carries a fragment yields two violations.
 */
import { findRedirectUriProblem } from '../../schemas/redirect-uri.rules.js';
import {
  violation,
  type ClientIdMetadataDocumentCheck,
  type ClientIdMetadataDocumentViolation,
} from '../violation.js';

/**
 * `redirect_uris` is a non-empty array of https, loopback-http or allowed private-use URIs without fragments.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.3
 */
export const checkRedirectUris: ClientIdMetadataDocumentCheck = (document, context) => {
  const uris = document['redirect_uris'];
  if (!Array.isArray(uris) || uris.length === 0) {
    return [
      violation('redirect_uris_missing', 'redirect_uris is REQUIRED and must be a non-empty array', [
        'redirect_uris',
      ]),
    ];
  }
  const found: ClientIdMetadataDocumentViolation[] = [];
  uris.forEach((uri: unknown, index) => {
    const path = ['redirect_uris', index];
    if (typeof uri !== 'string') {
      found.push(violation('redirect_uri_invalid', 'a redirect URI must be a string', path));
      return;
    }
    // The fragment is its own violation, so the rest of the URI is judged without it.
    const hash = uri.indexOf('#');
    const problem = findRedirectUriProblem(hash === -1 ? uri : uri.slice(0, hash), context.privateUseSchemes);
    if (problem === 'refused_scheme' || problem === 'scheme_not_allowed' || problem === 'insecure_http') {
      found.push(
        violation('redirect_uri_insecure', 'a redirect URI must use https, or http on a loopback host', path),
      );
    } else if (problem !== undefined) {
      found.push(
        violation('redirect_uri_invalid', `a redirect URI must be a valid absolute URL (${problem})`, path),
      );
    }
    if (uri.includes('#')) {
      found.push(violation('redirect_uri_fragment', 'a redirect URI must not contain a fragment', path));
    }
  });
  return found;
};
