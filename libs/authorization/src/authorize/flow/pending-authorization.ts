import type { Confirmation } from '@portcullis/extensions';
import { z } from 'zod';
import { AttachmentsSchema, AuthorizationRequestRecordSchema } from '../../tokens/extension-claims.js';

/** A confirmation (RFC 7800 3.1): a JSON object such as `{"jkt": "..."}`. */
const ConfirmationSchema = z
  .record(z.string(), z.json())
  .transform((confirmation): Confirmation => confirmation);

/**
 * An authorization request that passed every check of `/authorize`: what the interaction steps and the code are
 * built from. Stored as JSON while the user signs in and consents, and read back through
 * {@link PendingAuthorizationSchema}, never cast.
 */
export const ValidatedAuthorizationSchema = z.object({
  clientId: z.string().min(1),
  redirectUri: z.string().min(1),
  /** Whether the authorization request carried `redirect_uri` (then the token request repeats it, RFC 6749 4.1.3). */
  redirectUriSent: z.boolean().optional(),
  state: z.string().optional(),
  codeChallenge: z.string().min(1),
  resource: z.string().min(1),
  scopes: z.array(z.string()),
  nonce: z.string().optional(),
  prompt: z.array(z.string()),
  /** The key the code is bound to (RFC 9449 10, `dpop_jkt`), a confirmation such as `{"jkt": "..."}`. */
  confirmation: ConfirmationSchema.optional(),
  /** The request as the extension checks saw it, for extensions' token claims. */
  authorizationRequest: AuthorizationRequestRecordSchema.optional(),
  /** What the extension checks attached to this authorization, by extension id. */
  attachments: AttachmentsSchema.optional(),
});

export type ValidatedAuthorization = z.infer<typeof ValidatedAuthorizationSchema>;

/**
 * What happened in the browser since `/authorize`, as the steps record it. Every field is about this one
 * authorization: nothing carries over to the next.
 */
export const InteractionProgressSchema = z.object({
  /**
   * SHA-256 of the browser-binding cookie of the browser whose `/authorize` request this is: the only browser in
   * which it can be shown, answered or continued.
   */
  browser: z.string().optional(),
  /** The session that signed in during this flow (it satisfies `prompt=login`). */
  signedInSession: z.string().optional(),
  /** Scopes the user approved on a consent page of this flow (the proxy's before going upstream, or ours). */
  approvedScopes: z.array(z.string()).optional(),
  /** Whether the person did something in this browser during this flow: signed in with a form, approved, continued. */
  acted: z.boolean().optional(),
});

export type InteractionProgress = z.infer<typeof InteractionProgressSchema>;

/** A pending authorization as stored: the request and the progress of its interaction. */
export const PendingAuthorizationSchema = z.object({
  request: ValidatedAuthorizationSchema,
  progress: InteractionProgressSchema,
});

export type PendingAuthorization = z.infer<typeof PendingAuthorizationSchema>;
