/*
 * OAuth 2.0 Protected Resource Metadata, RFC 9728 section 2, as MCP profiles it:
 * - `resource` is the resource identifier: https URL without fragment (RFC 9728 1.2; http only on loopback);
 * - `authorization_servers` is REQUIRED with at least one issuer here, although RFC 9728 makes it OPTIONAL
 *   (MCP "Authorization Server Location", every revision: "MUST include ... at least one authorization server");
 * - `jwks_uri` MUST use https (RFC 9728 2); `resource_signing_alg_values_supported` never contains `none`.
 * Unknown members, language-tagged ones (`resource_name#fr`) included, are kept (RFC 9728 3.2: "MUST be ignored"
 * by consumers that do not understand them, which is not the same as dropping them).
 * Not enforced here: RFC 9728 3.3 (`resource` equals the URL the client used), which needs the request context,
 * and the SHOULD NOT on listing `offline_access` (MCP 2026-07-28 "Refresh Tokens"; absent from 2025-06-18).
 */
import { z } from 'zod';
import { ScopeTokenSchema, SigningAlgorithmListSchema, StringListSchema } from './metadata-fields.schema.js';
import { EndpointUrlSchema, IssuerUrlSchema, WebPageUrlSchema } from './safe-url.schema.js';

/**
 * A protected resource metadata document, served at `/.well-known/oauth-protected-resource{path}`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.2
 */
export const ProtectedResourceMetadataSchema = z.looseObject({
  resource: EndpointUrlSchema,
  authorization_servers: z
    .array(IssuerUrlSchema)
    .min(1, 'authorization_servers must list at least one issuer'),
  jwks_uri: EndpointUrlSchema.optional(),
  scopes_supported: z.array(ScopeTokenSchema).optional(),
  bearer_methods_supported: StringListSchema.optional(),
  resource_signing_alg_values_supported: SigningAlgorithmListSchema.optional(),
  resource_name: z.string().optional(),
  resource_documentation: WebPageUrlSchema.optional(),
  resource_policy_uri: WebPageUrlSchema.optional(),
  resource_tos_uri: WebPageUrlSchema.optional(),
  tls_client_certificate_bound_access_tokens: z.boolean().optional(),
  authorization_details_types_supported: StringListSchema.optional(),
  dpop_signing_alg_values_supported: SigningAlgorithmListSchema.optional(),
  dpop_bound_access_tokens_required: z.boolean().optional(),
  signed_metadata: z.string().min(1).optional(),
});

/**
 * A parsed protected resource metadata document.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadataSchema>;
