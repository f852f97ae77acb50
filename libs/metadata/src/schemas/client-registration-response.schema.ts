/*
 * Client Information Response, RFC 7591 section 3.2.1: the registered metadata plus
 * - `client_id` REQUIRED; `client_secret` OPTIONAL; `client_id_issued_at` OPTIONAL (seconds since the epoch);
 * - `client_secret_expires_at` "REQUIRED if client_secret is issued" (0: never expires);
 * - RFC 7592 section 3 `registration_access_token` and `registration_client_uri` when management is offered.
 * The client metadata rules (RFC 7591 2) apply unchanged.
 */
import { z } from 'zod';
import { clientMetadataShape, hasJwksAndJwksUri } from './client-metadata.schema.js';
import { EndpointUrlSchema } from './safe-url.schema.js';

const NumericDateSchema = z.number().int().nonnegative();

/**
 * A successful registration response. Unknown members are kept.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1
 * @see https://www.rfc-editor.org/rfc/rfc7592#section-3
 */
export const ClientRegistrationResponseSchema = z
  .looseObject({
    ...clientMetadataShape,
    client_id: z.string().min(1),
    client_secret: z.string().min(1).optional(),
    client_id_issued_at: NumericDateSchema.optional(),
    client_secret_expires_at: NumericDateSchema.optional(),
    registration_access_token: z.string().min(1).optional(),
    registration_client_uri: EndpointUrlSchema.optional(),
  })
  .superRefine((response, ctx) => {
    if (response.client_secret !== undefined && response.client_secret_expires_at === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['client_secret_expires_at'],
        message: 'client_secret_expires_at is REQUIRED when client_secret is issued',
      });
    }
    if (hasJwksAndJwksUri(response)) {
      ctx.addIssue({ code: 'custom', path: ['jwks'], message: 'jwks_uri and jwks MUST NOT both be present' });
    }
  });

/**
 * A parsed registration response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1
 */
export type ClientRegistrationResponse = z.infer<typeof ClientRegistrationResponseSchema>;
