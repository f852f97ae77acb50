/*
 * OAuth 2.0 Authorization Server Metadata, RFC 8414 section 2, plus
 * - `authorization_response_iss_parameter_supported` (RFC 9207 section 3),
 * - `client_id_metadata_document_supported` (draft-ietf-oauth-client-id-metadata-document, "Authorization
 *   Server Metadata").
 * Kept: `issuer` is an https URL without query or fragment (http only on loopback); `response_types_supported` is
 * REQUIRED; endpoint URLs are absolute https URLs without fragment (RFC 6749 3.1, 3.2; MCP 2026-07-28
 * "Communication Security"); the `*_auth_signing_alg_values_supported` lists never contain `none`.
 * `authorization_endpoint` and `token_endpoint` are optional as in RFC 8414 (each is required only for grant
 * types that use it); a client checks the one it needs. Not enforced here: RFC 8414 3.3 (`issuer` equals the
 * issuer the metadata URL was built from), which needs the request context, and the S256 requirement of MCP
 * 2026-07-28 "Authorization Code Protection", which is the client's decision to proceed.
 */
import { z } from 'zod';
import { ScopeTokenSchema, SigningAlgorithmListSchema, StringListSchema } from './metadata-fields.schema.js';
import { EndpointUrlSchema, IssuerUrlSchema, WebPageUrlSchema } from './safe-url.schema.js';

/**
 * The RFC 8414 members, shared with {@link OpenIdProviderMetadataSchema} which extends them.
 */
export const authorizationServerMetadataShape = {
  issuer: IssuerUrlSchema,
  authorization_endpoint: EndpointUrlSchema.optional(),
  token_endpoint: EndpointUrlSchema.optional(),
  jwks_uri: EndpointUrlSchema.optional(),
  registration_endpoint: EndpointUrlSchema.optional(),
  scopes_supported: z.array(ScopeTokenSchema).optional(),
  response_types_supported: StringListSchema,
  response_modes_supported: StringListSchema.optional(),
  grant_types_supported: StringListSchema.optional(),
  token_endpoint_auth_methods_supported: StringListSchema.optional(),
  token_endpoint_auth_signing_alg_values_supported: SigningAlgorithmListSchema.optional(),
  service_documentation: WebPageUrlSchema.optional(),
  ui_locales_supported: StringListSchema.optional(),
  op_policy_uri: WebPageUrlSchema.optional(),
  op_tos_uri: WebPageUrlSchema.optional(),
  revocation_endpoint: EndpointUrlSchema.optional(),
  revocation_endpoint_auth_methods_supported: StringListSchema.optional(),
  revocation_endpoint_auth_signing_alg_values_supported: SigningAlgorithmListSchema.optional(),
  introspection_endpoint: EndpointUrlSchema.optional(),
  introspection_endpoint_auth_methods_supported: StringListSchema.optional(),
  introspection_endpoint_auth_signing_alg_values_supported: SigningAlgorithmListSchema.optional(),
  code_challenge_methods_supported: StringListSchema.optional(),
  signed_metadata: z.string().min(1).optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
  client_id_metadata_document_supported: z.boolean().optional(),
};

/**
 * An authorization server metadata document, served at `/.well-known/oauth-authorization-server{path}`.
 * Unknown members are kept.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-3
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-5
 */
export const AuthorizationServerMetadataSchema = z.looseObject(authorizationServerMetadataShape);

/**
 * A parsed authorization server metadata document.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadataSchema>;
