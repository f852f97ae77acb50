/*
 * OAuth 2.0 Dynamic Client Registration metadata, RFC 7591 section 2 (and 2.3 `software_statement`), plus
 * `application_type` from OpenID Connect Dynamic Client Registration 1.0 section 2 (`web` or `native`; MCP
 * 2026-07-28 requires it in registration requests, "Application Type and Redirect URI Constraints").
 * Kept: redirect URIs are absolute, without fragment, never a refused scheme (RFC 6749 3.1.2); `jwks_uri` and
 * `jwks` "MUST NOT both be present" (RFC 7591 2); `scope` follows RFC 6749 3.3.
 * Left to the authorization server's policy: which redirect schemes and hosts it accepts (MCP 2026-07-28
 * "Communication Security", RFC 8252), and defaults for omitted members (`token_endpoint_auth_method` defaults
 * to `client_secret_basic`, `application_type` to `web`): the schema never adds members the client did not send.
 * `client_name` holds no bidirectional control or zero-width character (client-name.schema.ts, RFC 7591 5).
 * `dpop_bound_access_tokens` (RFC 9449 section 5.2) is a boolean.
 */
import { z } from 'zod';
import { ClientNameSchema } from './client-name.schema.js';
import { JwkSetSchema } from './jwk-set.schema.js';
import { ScopeStringSchema, StringListSchema } from './metadata-fields.schema.js';
import { EndpointUrlSchema, RedirectUriSchema, WebPageUrlSchema } from './safe-url.schema.js';

/** The client metadata members, shared with the documents that extend client metadata. */
export const clientMetadataShape = {
  redirect_uris: z.array(RedirectUriSchema).optional(),
  token_endpoint_auth_method: z.string().min(1).optional(),
  grant_types: StringListSchema.optional(),
  response_types: StringListSchema.optional(),
  client_name: ClientNameSchema.optional(),
  client_uri: WebPageUrlSchema.optional(),
  logo_uri: WebPageUrlSchema.optional(),
  scope: ScopeStringSchema.optional(),
  contacts: StringListSchema.optional(),
  tos_uri: WebPageUrlSchema.optional(),
  policy_uri: WebPageUrlSchema.optional(),
  jwks_uri: EndpointUrlSchema.optional(),
  jwks: JwkSetSchema.optional(),
  software_id: z.string().optional(),
  software_version: z.string().optional(),
  software_statement: z.string().min(1).optional(),
  application_type: z.enum(['web', 'native']).optional(),
  /** RFC 9449 section 5.2: the client always uses DPoP at the token endpoint; default false. */
  dpop_bound_access_tokens: z.boolean().optional(),
};

/**
 * Whether both `jwks_uri` and `jwks` are present, which RFC 7591 forbids.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export function hasJwksAndJwksUri(metadata: Readonly<Record<string, unknown>>): boolean {
  return metadata['jwks_uri'] !== undefined && metadata['jwks'] !== undefined;
}

/**
 * Client metadata as sent in a registration request (and echoed in its response). Unknown members, including
 * language-tagged ones (`client_name#ja-Jpan-JP`), are kept.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 * @see https://openid.net/specs/openid-connect-registration-1_0.html#ClientMetadata
 */
export const ClientMetadataSchema = z.looseObject(clientMetadataShape).superRefine((metadata, ctx) => {
  if (hasJwksAndJwksUri(metadata)) {
    ctx.addIssue({ code: 'custom', path: ['jwks'], message: 'jwks_uri and jwks MUST NOT both be present' });
  }
});

/**
 * Parsed client metadata.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export type ClientMetadata = z.infer<typeof ClientMetadataSchema>;
