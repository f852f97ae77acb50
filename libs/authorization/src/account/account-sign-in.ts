import { Inject, Injectable } from '@nestjs/common';
import type { Decision } from '../authorize/flow/interaction-step.js';
import { endpointPath } from '../authorize/flow/paths.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SecurityEvents } from '../events/security-events.js';
import type { CookieExchange } from '../http/cookies.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { SessionService } from '../sessions/session.service.js';
import { MAX_CREDENTIAL_LENGTH, PASSWORD_AMR, verifyCredentials } from '../users/credentials.js';
import { UserRepository } from '../users/user.repository.js';
import { accountSignInPage } from './account.page.js';

/** The token the account page's sign-in is provided under (see {@link AccountSignIn}). */
export const ACCOUNT_SIGN_IN = Symbol('ACCOUNT_SIGN_IN');

/** What the account page hands its sign-in: where its form posts, and that form's CSRF token. */
export interface AccountSignInForm {
  readonly action: string;
  readonly csrf: string;
  /** The query of `GET /account` (a sign-in that failed comes back with `failed=1`). */
  readonly query: RequestParameters;
}

/**
 * How a person signs in on the connected apps page (`/account`): the authorization server asks for a password
 * ({@link PasswordAccountSignIn}); the proxy sends the browser to its upstream authorization server. The page checks
 * the form's CSRF token before {@link AccountSignIn.submit} runs; a successful sign-in starts a session and comes
 * back to `/account`.
 */
export interface AccountSignIn {
  /** The page for a browser without a session, with its status. */
  page(form: AccountSignInForm): { status: number; html: string };
  /** Answers the sign-in form, its CSRF token already checked. */
  submit(cookies: CookieExchange, form: RequestParameters): Promise<Decision>;
}

/** The authorization server's own sign-in: username and password, argon2id, the same timing for unknown names. */
@Injectable()
export class PasswordAccountSignIn implements AccountSignIn {
  constructor(
    private readonly sessions: SessionService,
    private readonly users: UserRepository,
    private readonly events: SecurityEvents,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  page(form: AccountSignInForm): { status: number; html: string } {
    const failed = form.query.get('failed') === '1';
    return { status: failed ? 401 : 200, html: accountSignInPage(form.action, form.csrf, failed) };
  }

  async submit(cookies: CookieExchange, form: RequestParameters): Promise<Decision> {
    const account = endpointPath(this.options.issuer, 'account');
    const username = form.get('username') ?? '';
    const user = await verifyCredentials(this.users, username, form.get('password') ?? '');
    if (!user) {
      await this.events.record('sign_in.failed', {
        detail: { username: username.slice(0, MAX_CREDENTIAL_LENGTH), page: 'account' },
      });
      return { kind: 'redirect', location: `${account}?failed=1` };
    }
    await this.sessions.start(cookies, user.id, PASSWORD_AMR);
    await this.events.record('sign_in.succeeded', { userId: user.id, detail: { page: 'account' } });
    return { kind: 'redirect', location: account };
  }
}
