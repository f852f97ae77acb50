/*
 * Successful access token response, RFC 6749 section 5.1:
 * - `access_token` REQUIRED and `refresh_token` OPTIONAL, each `1*VSCHAR` (RFC 6749 A.12, A.17), so a token
 *   can never smuggle CR/LF into the Authorization header it is later sent in;
 * - `token_type` REQUIRED, compared case-insensitively by consumers (RFC 6749 5.1, 7.1): kept as sent;
 * - `expires_in` RECOMMENDED, `1*DIGIT` seconds (RFC 6749 A.14): a non-negative integer JSON number;
 * - `scope` OPTIONAL, RFC 6749 3.3 syntax.
 * Unknown members (`id_token`, `example_parameter`, ...) are kept.
 */
import { z } from 'zod';
import { ScopeStringSchema } from './metadata-fields.schema.js';

const VSCHAR_TOKEN = /^[\x20-\x7E]+$/;

/**
 * A token endpoint success response body.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export const TokenResponseSchema = z.looseObject({
  access_token: z.string().regex(VSCHAR_TOKEN, 'access_token must be 1*VSCHAR (RFC 6749 A.12)'),
  token_type: z.string().min(1),
  expires_in: z.number().int().nonnegative().optional(),
  refresh_token: z.string().regex(VSCHAR_TOKEN, 'refresh_token must be 1*VSCHAR (RFC 6749 A.17)').optional(),
  scope: ScopeStringSchema.optional(),
});

/**
 * A parsed token endpoint success response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export type TokenResponse = z.infer<typeof TokenResponseSchema>;
