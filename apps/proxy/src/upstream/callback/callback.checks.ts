import type { CallbackCheck } from './callback-check.js';
import { allowedUserCheck } from './checks/allowed-user.check.js';
import { browserBindingCheck } from './checks/browser-binding.check.js';
import { connectIdentityCheck } from './checks/connect-identity.check.js';
import { connectSessionCheck } from './checks/connect-session.check.js';
import { connectTicketTakenCheck } from './checks/connect-ticket-taken.check.js';
import { connectTicketCheck } from './checks/connect-ticket.check.js';
import { connectionCheck } from './checks/connection.check.js';
import { pendingAuthorizationCheck } from './checks/pending-authorization.check.js';
import { singleParametersCheck } from './checks/single-parameters.check.js';
import { stateTakenCheck } from './checks/state-taken.check.js';
import { stateCheck } from './checks/state.check.js';
import { upstreamResponseCheck } from './checks/upstream-response.check.js';

/**
 * The upstream callback's checks, in the order they run. Everything the proxy holds is checked before the
 * upstream is asked anything, so a forged or replayed callback costs no upstream request; who may sign in is
 * checked once the upstream said who signed in, and before anything is stored. The response must come back to the
 * callback of the provider it went to (mix-up), and a connection other than the sign-in provider's is connected only
 * in the session of the ticket's user, both before the state is used up. A connect checks last that the person is
 * the user its ticket names, and only then uses the ticket up.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7.1
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 */
export const CALLBACK_CHECKS: readonly CallbackCheck[] = [
  singleParametersCheck,
  stateCheck,
  browserBindingCheck,
  connectTicketCheck,
  connectionCheck,
  connectSessionCheck,
  stateTakenCheck,
  pendingAuthorizationCheck,
  upstreamResponseCheck,
  allowedUserCheck,
  connectIdentityCheck,
  connectTicketTakenCheck,
];
