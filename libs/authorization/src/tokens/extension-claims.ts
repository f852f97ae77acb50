// Rules kept: an extension's token claims see the same authorization for every token of a grant (the authorization
// code's and every refresh's): the person who authorized it (`sub`, OpenID Connect `auth_time`, RFC 8176 `amr`), the
// grant (RFC 6749 1.3), the authorization request as the extension checks saw it (RFC 6749 4.1.1) and what those
// checks attached. All of it is read back from the grant row through schemas, never cast: a row that does not read
// as one issues nothing (a server_error), rather than a token without the claims an extension would have added.
import type { ExtensionAttachments, TokenClaimsRequest } from '@portcullis/extensions';
import type { AuthorizationGrant } from '@portcullis/persistence';
import { z } from 'zod';

/**
 * The authorization request as the extension checks saw it: every parameter but `resource`, and the `resource`
 * values. Kept with the pending authorization, then with the grant.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
export const AuthorizationRequestRecordSchema = z.object({
  params: z.record(z.string(), z.string()),
  resources: z.array(z.string()),
});

/**
 * What extensions' authorization request checks attached, by extension id: JSON objects.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
export const AttachmentsSchema = z
  .record(z.string(), z.record(z.string(), z.json()))
  .transform((attachments): ExtensionAttachments => attachments as ExtensionAttachments);

/** What {@link TokenClaimsRequest} says about a grant, from its stored row. */
export type GrantClaimsContext = Pick<
  TokenClaimsRequest,
  'user' | 'grant' | 'authorizationRequest' | 'attachments'
>;

/**
 * The part of extensions' token claims context that comes from the grant a token descends from; nothing for a token
 * without one (an extension's grant).
 *
 * @throws Error when the row's authorization request or attachments do not read as such.
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 */
export function grantClaimsContext(grant: AuthorizationGrant | undefined): GrantClaimsContext {
  if (grant === undefined) return {};
  const request =
    grant.authorizationRequest === null
      ? undefined
      : read(AuthorizationRequestRecordSchema, grant, 'authorizationRequest');
  const attachments = grant.attachments === null ? undefined : read(AttachmentsSchema, grant, 'attachments');
  return {
    user: { sub: grant.userId, auth_time: Math.floor(grant.authTime.getTime() / 1000), amr: [...grant.amr] },
    grant: { id: grant.id, scope: [...grant.scopes], resource: grant.resource },
    ...(request ? { authorizationRequest: request } : {}),
    ...(attachments ? { attachments } : {}),
  };
}

function read<S extends z.ZodType>(
  schema: S,
  grant: AuthorizationGrant,
  column: 'authorizationRequest' | 'attachments',
): z.output<S> {
  const parsed = schema.safeParse(grant[column]);
  if (!parsed.success) throw new Error(`the ${column} of grant ${grant.id} does not read as one`);
  return parsed.data;
}
