import type { Revision } from '@portcullis/revisions';
import type { PendingAuthorization } from '../authorization-request.js';

/**
 * An authorization response as received at the redirect URI: its parameters, each present at most once.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 */
export interface CallbackParameters {
  readonly code?: string;
  readonly state?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly errorDescription?: string;
  readonly errorUri?: string;
}

/**
 * One rule applied to an authorization response before its code is redeemed. Throws a `PortcullisError` when the
 * rule is broken.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 */
export type CallbackCheck = (
  callback: CallbackParameters,
  pending: PendingAuthorization,
  revision: Revision,
) => void;
