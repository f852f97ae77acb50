// Rules kept: CIMD draft 4.1 and MCP 2026-07-28 "Client ID Metadata Documents" through
// `validateClientIdMetadataDocument` of libs/metadata (a JSON object; `client_id` equal to the document URL by
// simple string comparison, RFC 3986 6.2.1; `client_name` and `redirect_uris` present; `client_name` without
// bidirectional controls or zero-width characters, RFC 7591 5; redirect URIs https or loopback http without
// fragment; no `client_secret` or `client_secret_expires_at`; no `client_secret_*` method; only public keys in
// `jwks`; `private_key_jwt` with keys).
// This server's own: `token_endpoint_auth_method` defaults to `none` and must be `none` or `private_key_jwt` (a
// method it cannot verify is refused rather than ignored); a public client keeps only the grants a user takes part
// in (`authorization_code`, `refresh_token`): a client that proves nothing at the token endpoint gets no grant
// that would rest on client authentication alone; no client keeps an extension grant that only the operator's
// clients may use (for the same reason: anyone can publish a document and its keys). `grant_types` defaults to
// `authorization_code` (RFC 7591 2), `response_types` to `code`.
import {
  isLoopbackHostname,
  validateClientIdMetadataDocument,
  type ClientIdMetadataDocumentValidation,
} from '@portcullis/metadata';
import type { OAuthClient } from '../client.js';
import { MetadataDocumentRefusal } from './metadata-document-refusal.js';
import { isLoopbackClientIdMetadataUrl } from '@portcullis/metadata';

const SUPPORTED_AUTH_METHODS = new Set(['none', 'private_key_jwt']);
const PUBLIC_CLIENT_GRANTS = new Set(['authorization_code', 'refresh_token']);

/**
 * The client a fetched client ID metadata document describes, or a {@link MetadataDocumentRefusal} naming every
 * broken rule.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export function clientFromMetadataDocument(
  json: Readonly<Record<string, unknown>>,
  clientId: string,
  operatorGrants: readonly string[] = [],
): OAuthClient {
  const result = validate(json, clientId);
  if (!result.ok) {
    throw new MetadataDocumentRefusal(
      'invalid_document',
      result.errors.map((error) => `${error.rule}: ${error.message}`).join('; '),
    );
  }
  const { document } = result;
  const method = document.token_endpoint_auth_method ?? 'none';
  if (!SUPPORTED_AUTH_METHODS.has(method)) {
    throw new MetadataDocumentRefusal(
      'invalid_document',
      `token_endpoint_auth_method ${method} is not supported`,
    );
  }
  const declaredGrants = document.grant_types ?? ['authorization_code'];
  const grantTypes = declaredGrants.filter((grant) =>
    method === 'none' ? PUBLIC_CLIENT_GRANTS.has(grant) : !operatorGrants.includes(grant),
  );
  const native = document.redirect_uris.every(isLoopbackRedirect);
  return {
    clientId,
    clientName: document.client_name,
    redirectUris: document.redirect_uris,
    grantTypes,
    responseTypes: document.response_types ?? ['code'],
    origin: 'metadata-document',
    tokenEndpointAuthMethod: method,
    applicationType: document.application_type ?? (native ? 'native' : 'web'),
    metadata: document,
  };
}

/**
 * The draft's rules, on the document as fetched. In the development mode an http `client_id` runs the same rules
 * under its https spelling, and must still equal the URL byte for byte.
 */
function validate(
  json: Readonly<Record<string, unknown>>,
  clientId: string,
): ClientIdMetadataDocumentValidation {
  if (!isLoopbackClientIdMetadataUrl(clientId)) return validateClientIdMetadataDocument(json, clientId);
  if (json['client_id'] !== clientId) {
    return {
      ok: false,
      errors: [
        {
          rule: 'client_id_mismatch',
          message: 'client_id must equal the document URL by simple string comparison',
          path: ['client_id'],
        },
      ],
    };
  }
  const asHttps = `https://${clientId.slice('http://'.length)}`;
  const result = validateClientIdMetadataDocument({ ...json, client_id: asHttps }, asHttps);
  return result.ok ? { ok: true, document: { ...result.document, client_id: clientId } } : result;
}

function isLoopbackRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && isLoopbackHostname(url.hostname);
  } catch {
    return false;
  }
}
