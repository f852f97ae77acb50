/*
 * Error response, RFC 6749 section 5.2 (also the body of RFC 7591 3.2.2 registration errors):
 * - `error` REQUIRED and `error_description` OPTIONAL, each `1*NQSCHAR` (%x20-21 / %x23-5B / %x5D-7E; RFC 6749
 *   A.7, A.8): ASCII without `"` and `\`, so neither can break out of a quoted WWW-Authenticate parameter;
 * - `error_uri` OPTIONAL: a web page, absolute http(s), never a refused scheme (it is shown to people; RFC 6749
 *   A.9 "URI-reference", narrowed to absolute URLs because a relative one has no base to resolve against).
 * `error` is not restricted to the RFC 6749 codes: extensions (RFC 6750, 7591, 8707, 9207) add their own.
 */
import { z } from 'zod';
import { WebPageUrlSchema } from './safe-url.schema.js';

const NQSCHAR = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * An OAuth error response body.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2
 */
export const OAuthErrorResponseSchema = z.looseObject({
  error: z.string().regex(NQSCHAR, 'error must be 1*NQSCHAR (RFC 6749 A.7)'),
  error_description: z
    .string()
    .regex(NQSCHAR, 'error_description must be 1*NQSCHAR (RFC 6749 A.8)')
    .optional(),
  error_uri: WebPageUrlSchema.optional(),
});

/**
 * A parsed OAuth error response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export type OAuthErrorResponse = z.infer<typeof OAuthErrorResponseSchema>;
