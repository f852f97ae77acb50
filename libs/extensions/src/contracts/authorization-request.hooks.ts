import type { RegisteredClient } from './authorization-server.hooks.js';
import type { JsonObject } from './json.types.js';

/**
 * An authorization request as the host has parsed it (RFC 6749 section 4.1.1), for extension checks.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
export interface AuthorizationRequest {
  /** Every parameter except `resource`, each sent once (RFC 6749 section 3.1). */
  readonly params: Readonly<Record<string, string>>;
  /** Every `resource` parameter, in request order (RFC 8707 section 2). */
  readonly resources: readonly string[];
  readonly client: RegisteredClient;
}

/**
 * What the host knows when it runs the authorization request checks.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1
 */
export interface AuthorizationRequestContext {
  readonly issuer: string;
  readonly revision: string;
}

/**
 * One extra check of an authorization request. It returns to accept and throws to reject; the host maps what is
 * thrown to an RFC 6749 section 4.1.2.1 error response, exactly as for its own checks.
 *
 * A check that accepts may return a JSON object: values it attaches to this authorization (a `tenant` the request
 * chose, say). The host keeps them with the pending authorization through sign-in and consent, then with the grant,
 * and hands them to the same extension's `tokenClaims` as `attachments` for every token of the grant, refreshes
 * included. Attachments are the extension's own: no other extension sees them. Within one extension, the objects
 * its checks return are merged in check order, a later check's member replacing an earlier one's.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
 */
export type AuthorizationRequestCheck = (
  request: AuthorizationRequest,
  context: AuthorizationRequestContext,
) => void | JsonObject | Promise<void | JsonObject>;

/**
 * A named authorization request check; the name identifies it in logs and in the composed list.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
export interface NamedAuthorizationRequestCheck {
  readonly name: string;
  readonly check: AuthorizationRequestCheck;
}

/**
 * What the authorization request checks attached to one authorization, by extension id: each extension's merged
 * attachments. Extensions whose checks attached nothing are absent. The host stores it as it is and gives it back to
 * `ExtensionRegistry.tokenClaims`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
export type ExtensionAttachments = Readonly<Record<string, JsonObject>>;
