// Rules kept: CIMD draft 4.1 and MCP 2026-07-28 "Client ID Metadata Documents" through
// `validateClientIdMetadataDocument` of libs/metadata (a JSON object; `client_id` equal to the document URL by
// simple string comparison, RFC 3986 6.2.1; `client_name` and `redirect_uris` present; `client_name` without
// bidirectional controls or zero-width characters, RFC 7591 5; redirect URIs https, loopback http, or of a
// private-use scheme the operator allows (`ALLOWED_REDIRECT_SCHEMES`, RFC 8252 7.1), without fragment; no
// `client_secret` or `client_secret_expires_at`; no `client_secret_*` method; only public keys in `jwks`;
// `private_key_jwt` with keys).
// This server's own: `token_endpoint_auth_method` defaults to `none` and must be `none` or `private_key_jwt` (a
// method it cannot verify is refused rather than ignored); a public client keeps only the grants a user takes part
// in (`authorization_code`, `refresh_token`): a client that proves nothing at the token endpoint gets no grant
// that would rest on client authentication alone; no client keeps an extension grant that only the operator's
// clients may use (for the same reason: anyone can publish a document and its keys). `grant_types` defaults to
// `authorization_code` (RFC 7591 2), `response_types` to `code`; `application_type`, when absent, is what MCP
// 2026-07-28 has a client send (`native` with a loopback or private-use redirect URI, `web` otherwise).
import {
  redirectUriKind,
  validateClientIdMetadataDocument,
  type ClientIdMetadataDocumentValidation,
} from '@portcullis/metadata';
import type { OAuthClient } from '../client.js';
import { MetadataDocumentRefusal } from './metadata-document-refusal.js';
import { isLoopbackClientIdMetadataUrl } from '@portcullis/metadata';

const SUPPORTED_AUTH_METHODS = new Set(['none', 'private_key_jwt']);
const PUBLIC_CLIENT_GRANTS = new Set(['authorization_code', 'refresh_token']);

/** What the server's configuration adds to a document's rules. */
export interface MetadataDocumentPolicy {
  /** Extension grants only the operator's clients may use. */
  readonly operatorGrants?: readonly string[];
  /** Private-use redirect URI schemes the operator allows (RFC 8252 7.1), lowercase. */
  readonly privateUseSchemes?: readonly string[];
}

/**
 * The client a fetched client ID metadata document describes, or a {@link MetadataDocumentRefusal} naming every
 * broken rule.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1
 */
export function clientFromMetadataDocument(
  json: Readonly<Record<string, unknown>>,
  clientId: string,
  policy: MetadataDocumentPolicy = {},
): OAuthClient {
  const { operatorGrants = [], privateUseSchemes = [] } = policy;
  const result = validate(json, clientId, privateUseSchemes);
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
  const native = document.redirect_uris.some((uri) => redirectUriKind(uri, privateUseSchemes) !== 'https');
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
  privateUseSchemes: readonly string[],
): ClientIdMetadataDocumentValidation {
  if (!isLoopbackClientIdMetadataUrl(clientId)) {
    return validateClientIdMetadataDocument(json, clientId, { privateUseSchemes });
  }
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
  const result = validateClientIdMetadataDocument({ ...json, client_id: asHttps }, asHttps, {
    privateUseSchemes,
  });
  return result.ok ? { ok: true, document: { ...result.document, client_id: clientId } } : result;
}
