// Rule: extensions add metadata fields, they never replace the host's (RFC 8414 section 2, RFC 9728 section 2).
// - Every member registered for the authorization server metadata document by RFC 8414 section 2 is the host's,
//   and so are `signed_metadata` (RFC 8414 section 2.1), `authorization_response_iss_parameter_supported`
//   (RFC 9207 section 3) and `client_id_metadata_document_supported` (OAuth Client ID Metadata Document).
//   `grant_types_supported` in particular: the host lists its own grants and the registry's `grantTypes()`.
// - Every member registered for the protected resource metadata document by RFC 9728 section 2 is the host's,
//   and so is `signed_metadata` (RFC 9728 section 2.2).
// An extension that needs one of these changed needs the host changed, not a metadata contribution.

/**
 * Authorization server metadata members only the host may set.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-3
 */
export const RESERVED_AUTHORIZATION_SERVER_METADATA: ReadonlySet<string> = new Set([
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'registration_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported',
  'service_documentation',
  'ui_locales_supported',
  'op_policy_uri',
  'op_tos_uri',
  'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint',
  'introspection_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_signing_alg_values_supported',
  'code_challenge_methods_supported',
  'signed_metadata',
  'authorization_response_iss_parameter_supported',
  'client_id_metadata_document_supported',
]);

/**
 * Protected resource metadata members only the host may set.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export const RESERVED_RESOURCE_METADATA: ReadonlySet<string> = new Set([
  'resource',
  'authorization_servers',
  'jwks_uri',
  'scopes_supported',
  'bearer_methods_supported',
  'resource_signing_alg_values_supported',
  'resource_name',
  'resource_documentation',
  'resource_policy_uri',
  'resource_tos_uri',
  'tls_client_certificate_bound_access_tokens',
  'authorization_details_types_supported',
  'dpop_signing_alg_values_supported',
  'dpop_bound_access_tokens_required',
  'signed_metadata',
]);
