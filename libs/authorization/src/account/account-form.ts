import type { LoginSession } from '@portcullis/persistence';
import type { FastifyRequest } from 'fastify';
import { CookieExchange } from '../http/cookies.js';
import { rawBody } from '../http/raw-body.js';
import { RequestParameters } from '../http/request-parameters.js';
import { SessionService } from '../sessions/session.service.js';

/** What the CSRF tokens of the account page are bound to (with the session, or before sign-in the browser). */
export const ACCOUNT = 'account';

/** A form of the signed-in account page, accepted: its fields, and the session its CSRF token is bound to. */
export interface AccountSessionForm {
  readonly cookies: CookieExchange;
  readonly form: RequestParameters;
  readonly session: LoginSession;
}

/**
 * A form of the signed-in page (the page's own, or a section's); undefined when there is no session, the CSRF token
 * does not match it, or a field carries an unsafe character (then nothing may change).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7
 */
export async function accountSessionForm(
  sessions: SessionService,
  request: FastifyRequest,
): Promise<AccountSessionForm | undefined> {
  const cookies = new CookieExchange(request.headers.cookie);
  const form = RequestParameters.fromForm(rawBody(request));
  const session = await sessions.current(cookies);
  if (
    form.unsafe !== undefined ||
    !session ||
    !SessionService.tokensMatch(sessions.consentCsrfToken(session, ACCOUNT), form.get('csrf'))
  ) {
    return undefined;
  }
  return { cookies, form, session };
}
