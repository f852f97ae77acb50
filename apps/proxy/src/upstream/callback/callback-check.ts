import type {
  CookieExchange,
  PendingAuthorization,
  PendingAuthorizations,
  RequestParameters,
} from '@portcullis/authorization';
import type { ConnectTicket, ConnectTickets } from '../../connections/connect-ticket.service.js';
import type { SignInCookies } from '../sign-in-cookie.js';
import type { UpstreamClient, UpstreamSignIn } from '../upstream-client.service.js';
import type { UpstreamIdentities } from '../upstream-identity.repository.js';
import type { UpstreamSignInState, UpstreamStates } from '../upstream-state.repository.js';

/**
 * What the upstream callback's checks read and establish, in order: `state` and the sign-in it stands for after
 * the state check, the pending authorization after its check, the upstream's answer, and for a connect the ticket
 * it completes last.
 */
export interface CallbackCheckContext {
  readonly params: RequestParameters;
  readonly cookies: CookieExchange;
  readonly states: UpstreamStates;
  readonly signInCookies: SignInCookies;
  readonly pendingAuthorizations: PendingAuthorizations;
  readonly upstream: UpstreamClient;
  readonly identities: UpstreamIdentities;
  readonly connectTickets: ConnectTickets;
  state?: string;
  signIn?: UpstreamSignInState;
  pending?: PendingAuthorization;
  result?: UpstreamSignIn;
  /** The connect ticket of a `connect` sign-in, opened and checked against who signed in. */
  connectTicket?: ConnectTicket;
}

/**
 * A callback that fails a check: answered with a page and `status`, no code minted, nothing sent to any client.
 * The reason is shown as is, so it never carries anything the upstream or the request said.
 */
export class CallbackRejection extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'CallbackRejection';
  }
}

/** One rule of the upstream callback: returns to accept, throws `CallbackRejection` (or `UpstreamError`) to refuse. */
export interface CallbackCheck {
  readonly name: string;
  run(context: CallbackCheckContext): Promise<void>;
}

/** A field an earlier check established; a missing one is a programming error in the order of the checks. */
export function established<K extends 'state' | 'signIn' | 'pending' | 'result' | 'connectTicket'>(
  context: CallbackCheckContext,
  key: K,
): NonNullable<CallbackCheckContext[K]> {
  const value = context[key];
  if (value === undefined || value === null) throw new Error(`callback checks out of order: no ${key} yet`);
  return value as NonNullable<CallbackCheckContext[K]>;
}
