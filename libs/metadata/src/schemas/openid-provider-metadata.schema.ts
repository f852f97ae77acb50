/*
 * OpenID Connect Discovery 1.0 section 3, OpenID Provider Metadata. It is a superset of RFC 8414 (RFC 8414
 * section 5 "Compatibility Notes"), so it extends the authorization server members and makes REQUIRED what
 * OIDC Discovery requires: `authorization_endpoint`, `jwks_uri`, `subject_types_supported`,
 * `id_token_signing_alg_values_supported` (plus `issuer` and `response_types_supported`, already required).
 * `token_endpoint` stays optional: REQUIRED "unless only the Implicit Flow is used".
 * Not enforced: "RS256 MUST be included" in `id_token_signing_alg_values_supported` (MCP does not use ID tokens,
 * and refusing a provider over it would stop discovery for no protocol reason).
 * `request_object_signing_alg_values_supported` and the ID token / userinfo lists may contain `none` (OIDC allows
 * it there); `token_endpoint_auth_signing_alg_values_supported` may not (inherited rule).
 */
import { z } from 'zod';
import { authorizationServerMetadataShape } from './authorization-server-metadata.schema.js';
import { StringListSchema } from './metadata-fields.schema.js';
import { EndpointUrlSchema, WebPageUrlSchema } from './safe-url.schema.js';

/**
 * An OpenID Provider configuration document, served at `/.well-known/openid-configuration`. Unknown members
 * (`check_session_iframe`, `end_session_endpoint`, ...) are kept.
 *
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-5
 */
export const OpenIdProviderMetadataSchema = z.looseObject({
  ...authorizationServerMetadataShape,
  authorization_endpoint: EndpointUrlSchema,
  jwks_uri: EndpointUrlSchema,
  userinfo_endpoint: EndpointUrlSchema.optional(),
  acr_values_supported: StringListSchema.optional(),
  subject_types_supported: z.array(z.string()).min(1, 'subject_types_supported must not be empty'),
  id_token_signing_alg_values_supported: z
    .array(z.string())
    .min(1, 'id_token_signing_alg_values_supported must not be empty'),
  id_token_encryption_alg_values_supported: StringListSchema.optional(),
  id_token_encryption_enc_values_supported: StringListSchema.optional(),
  userinfo_signing_alg_values_supported: StringListSchema.optional(),
  userinfo_encryption_alg_values_supported: StringListSchema.optional(),
  userinfo_encryption_enc_values_supported: StringListSchema.optional(),
  request_object_signing_alg_values_supported: StringListSchema.optional(),
  request_object_encryption_alg_values_supported: StringListSchema.optional(),
  request_object_encryption_enc_values_supported: StringListSchema.optional(),
  display_values_supported: StringListSchema.optional(),
  claim_types_supported: StringListSchema.optional(),
  claims_supported: StringListSchema.optional(),
  claims_locales_supported: StringListSchema.optional(),
  claims_parameter_supported: z.boolean().optional(),
  request_parameter_supported: z.boolean().optional(),
  request_uri_parameter_supported: z.boolean().optional(),
  require_request_uri_registration: z.boolean().optional(),
  op_policy_uri: WebPageUrlSchema.optional(),
  op_tos_uri: WebPageUrlSchema.optional(),
});

/**
 * A parsed OpenID Provider configuration document.
 *
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata
 */
export type OpenIdProviderMetadata = z.infer<typeof OpenIdProviderMetadataSchema>;
