import { isScopeToken } from '@portcullis/protocol';
import { z } from 'zod';
import { EndpointSchema } from '../authorization-server/trusted-identity-providers.js';
import { jsonListEnvSchema } from '@portcullis/metadata';

/** A space-separated list of scope tokens (RFC 6749 3.3), at least one. */
const ScopeSchema = z
  .string()
  .refine((value) => value.split(' ').every(isScopeToken), 'must be scope tokens separated by single spaces');

/**
 * An authorization server this server, as an enterprise identity provider, issues ID-JAGs for: the administrator's
 * policy (the draft's "Processing Rules" of the token exchange) saying which clients may act for its users there,
 * with which client identifier, and with at most which scope.
 *
 * - `audience`: the resource authorization server's issuer identifier, exactly as it appears in its metadata.
 * - `scope`: the most an ID-JAG for it may carry.
 * - `clients`: a client of this server, and its `client_id` at that authorization server (the draft's "Cross-Domain
 *   Client ID Handling": the identity provider keeps the mapping).
 * - `metadata_document_clients`: a client whose identifier is a client ID metadata document URL keeps that
 *   identifier there too (the same global name at both servers).
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export const IdJagAudienceSchema = z
  .object({
    audience: EndpointSchema,
    scope: ScopeSchema,
    clients: z.record(z.string().min(1), z.string().min(1)).optional(),
    metadata_document_clients: z.boolean().optional(),
  })
  .strict()
  .refine(
    (entry) => Object.keys(entry.clients ?? {}).length > 0 || entry.metadata_document_clients === true,
    {
      message: 'names no client: give clients, metadata_document_clients: true, or both',
    },
  );

export type IdJagAudience = z.infer<typeof IdJagAudienceSchema>;

/**
 * `ENTERPRISE_IDP_AUDIENCES`: a JSON array of the authorization servers this server issues ID-JAGs for, e.g.
 * `[{"audience":"https://mcp-as.example.com","scope":"notes:read","metadata_document_clients":true}]`. Unset:
 * none (this server is no identity provider).
 */
export const IdJagAudiencesSchema = jsonListEnvSchema(IdJagAudienceSchema, {
  shape: '{audience, scope, clients | metadata_document_clients}',
  key: (entry) => entry.audience,
  keyName: 'audience',
});
