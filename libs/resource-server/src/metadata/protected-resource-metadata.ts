/**
 * The Protected Resource Metadata document (RFC 9728) of a resource, and how it is served.
 *
 * Rules kept here:
 * - RFC 9728 Section 2, MCP "Canonical Server URI", "Authorization Server Location" and 2026-07-28 "Refresh
 *   Tokens": `resource` is the canonical resource URI, the same string tokens must carry as `aud` (RFC 9728
 *   Section 3.3 lets clients compare it with the URL they use); `authorization_servers` lists at least one issuer;
 *   `scopes_supported` never lists `offline_access`; `bearer_methods_supported` is `["header"]`, the only method
 *   this resource accepts.
 * - RFC 9728 Section 2, RFC 9449 Section 7: with a proof-of-possession extension composed, the host writes
 *   `dpop_signing_alg_values_supported` (the extension's `algorithms`) and `dpop_bound_access_tokens_required`
 *   (whether it refuses unbound tokens); both are host fields no extension may set.
 * - Extensions add fields, never replace the host's (the registry refuses RFC 9728 member names, and the host's
 *   fields are written last).
 * - The document is checked against `ProtectedResourceMetadataSchema` before anything serves it, so a resource
 *   cannot start while publishing an invalid one.
 * - The document is public and fetched by browser-based clients too, so it allows any origin (RFC 9728 Section 3
 *   puts no access control on it, and it says nothing a request could not learn from the 401 challenge) and answers
 *   CORS preflights, which the `MCP-Protocol-Version` header some clients send triggers.
 */
import { ProtectedResourceMetadataSchema, type ProtectedResourceMetadata } from '@portcullis/metadata';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { CORS_EXPOSED_HEADERS } from '../http/browser-cors.js';

/** Header fields of the metadata document's `200`. */
export const METADATA_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': CORS_EXPOSED_HEADERS,
  'cache-control': 'public, max-age=300',
});

/** Header fields of the answer (`204`) to a preflight for the metadata document. */
export const METADATA_PREFLIGHT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-max-age': '86400',
});

/**
 * The resource's metadata document, built afresh (extension contributions may depend on their context).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-2 RFC 9728 Section 2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3.2 RFC 9728 Section 3.2}
 */
export function protectedResourceMetadata(config: ResourceServerConfig): ProtectedResourceMetadata {
  const proof = config.extensions.resourceServerProofOfPossession();
  return {
    ...config.extensions.resourceMetadata({ resource: config.resource, revision: config.revision.id }),
    resource: config.resource,
    authorization_servers: [...config.authorizationServers],
    ...(config.scopesSupported.length > 0 ? { scopes_supported: [...config.scopesSupported] } : {}),
    bearer_methods_supported: ['header'],
    ...(config.resourceName ? { resource_name: config.resourceName } : {}),
    ...(proof
      ? {
          dpop_signing_alg_values_supported: [...proof.algorithms],
          dpop_bound_access_tokens_required: proof.required,
        }
      : {}),
  };
}

/**
 * Checks the document against the RFC 9728 schema.
 *
 * @throws Error naming the first invalid member.
 */
export function assertValidMetadata(config: ResourceServerConfig): void {
  const result = ProtectedResourceMetadataSchema.safeParse(protectedResourceMetadata(config));
  if (!result.success) {
    const [issue] = result.error.issues;
    throw new Error(`protected resource metadata is invalid: ${issue?.path.join('.')} ${issue?.message}`);
  }
}
