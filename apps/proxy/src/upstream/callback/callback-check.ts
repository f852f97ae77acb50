import type {
  CookieExchange,
  PendingAuthorization,
  PendingAuthorizations,
  RequestParameters,
  SessionService,
} from '@portcullis/authorization';
import type { ConnectTicket, ConnectTickets } from '../../connections/connect-ticket.service.js';
import type { UpstreamConnections } from '../../connections/upstream-connections.service.js';
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
  /**
   * The connection whose callback the browser came back to: `upstream` at `/upstream/callback`, `<name>` at
   * `/connections/<name>/callback`.
   */
  readonly arrivedAt: string;
  readonly states: UpstreamStates;
  readonly signInCookies: SignInCookies;
  readonly pendingAuthorizations: PendingAuthorizations;
  readonly connections: UpstreamConnections;
  readonly identities: UpstreamIdentities;
  readonly connectTickets: ConnectTickets;
  readonly sessions: SessionService;
  state?: string;
  signIn?: UpstreamSignInState;
  pending?: PendingAuthorization;
  /** The provider the sign-in went to: the connect ticket's connection's, or the sign-in provider's. */
  upstream?: UpstreamClient;
  result?: UpstreamSignIn;
  /**
   * The connect ticket of a `connect` sign-in (or of an `account` sign-in on its way to one), opened and checked
   * against who signed in.
   */
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
export function established<
  K extends 'state' | 'signIn' | 'pending' | 'upstream' | 'result' | 'connectTicket',
>(context: CallbackCheckContext, key: K): NonNullable<CallbackCheckContext[K]> {
  const value = context[key];
  if (value === undefined || value === null) throw new Error(`callback checks out of order: no ${key} yet`);
  return value as NonNullable<CallbackCheckContext[K]>;
}
