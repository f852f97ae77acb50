import type { LoginSession } from '@portcullis/persistence';
import type { SessionService } from '../../sessions/session.service.js';
import type { InteractionFlow } from '../flow/interaction-step.js';

/** A person who has signed in: the local user id (the token `sub`), a name for the log, and how they signed in. */
export interface AuthenticatedUser {
  readonly id: string;
  readonly username: string;
  /** RFC 8176 authentication method values (`pwd`); empty or absent when not known. */
  readonly amr?: readonly string[];
}

/**
 * Whether the flow's browser is signed in as the request needs: a live session, and for `prompt=login` (or
 * `select_account`) one that signed in during this very flow.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest (prompt=login)
 */
export function signedInAsRequested(flow: InteractionFlow): boolean {
  if (!flow.session) return false;
  const again = flow.request.prompt.includes('login') || flow.request.prompt.includes('select_account');
  return !again || flow.progress.signedInSession === flow.session.id;
}

/**
 * Starts a session for `user` in the flow's browser and records that this flow signed in (which is what satisfies
 * `prompt=login`).
 */
export async function signIn(
  sessions: SessionService,
  flow: InteractionFlow,
  user: AuthenticatedUser,
): Promise<LoginSession> {
  const session = await sessions.start(flow.cookies, user.id, user.amr ?? []);
  flow.session = session;
  flow.progress = { ...flow.progress, signedInSession: session.id };
  return session;
}
