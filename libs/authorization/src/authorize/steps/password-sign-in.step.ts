import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import type { RequestParameters } from '../../http/request-parameters.js';
import { SessionService } from '../../sessions/session.service.js';
import { SecurityEvents } from '../../events/security-events.js';
import { MAX_CREDENTIAL_LENGTH, PASSWORD_AMR, verifyCredentials } from '../../users/credentials.js';
import { UserRepository } from '../../users/user.repository.js';
import {
  ASK,
  CONTINUE,
  type Decision,
  type InteractionFlow,
  type InteractionStep,
} from '../flow/interaction-step.js';
import { endpointPath } from '../flow/paths.js';
import { loginPage } from '../pages/login.page.js';
import { signedInAsRequested, signIn, type AuthenticatedUser } from './sign-in.js';

/** Usernames and passwords are bounded before any hashing, so a huge value costs nothing. */

/**
 * Signing in with a local username and an argon2id-hashed password, on a plain HTML form. Needed when the browser
 * has no session, or for `prompt=login` until it signs in during this flow. A wrong password answers the form
 * again with 401; an unknown user costs the same hashing as a known one.
 */
@Injectable()
export class PasswordSignInStep implements InteractionStep {
  readonly name = 'sign-in';
  static readonly path = 'login';
  readonly path = PasswordSignInStep.path;
  readonly form = 'browser' as const;
  static readonly rateLimited = true;
  readonly rateLimited = PasswordSignInStep.rateLimited;
  readonly promptNoneError = 'login_required';
  readonly #logger = new Logger('SignIn');

  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionService,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    private readonly events: SecurityEvents,
  ) {}

  async next(flow: InteractionFlow): Promise<Decision> {
    return signedInAsRequested(flow) ? CONTINUE : ASK;
  }

  async show(
    flow: InteractionFlow & { handle: string },
    query: RequestParameters,
    csrf: string,
  ): Promise<Decision> {
    const failed = query.get('failed') === '1';
    return {
      kind: 'page',
      status: failed ? 401 : 200,
      html: loginPage({
        clientName: flow.client.clientName ?? flow.client.clientId,
        action: endpointPath(this.options.issuer, this.path),
        interaction: flow.handle,
        csrf,
        failed,
        ...(this.options.loginHint ? { hint: this.options.loginHint } : {}),
      }),
    };
  }

  async submit(flow: InteractionFlow & { handle: string }, form: RequestParameters): Promise<Decision> {
    const user = await this.#verify(form);
    if (!user) {
      await this.events.record('sign_in.failed', {
        clientId: flow.client.clientId,
        detail: { username: (form.get('username') ?? '').slice(0, MAX_CREDENTIAL_LENGTH) },
      });
      const login = endpointPath(this.options.issuer, this.path);
      return {
        kind: 'redirect',
        location: `${login}?interaction=${encodeURIComponent(flow.handle)}&failed=1`,
      };
    }
    await signIn(this.sessions, flow, user);
    await this.events.record('sign_in.succeeded', { userId: user.id, clientId: flow.client.clientId });
    flow.progress = { ...flow.progress, acted: true };
    this.#logger.log(`user ${user.username} signed in`);
    return CONTINUE;
  }

  async #verify(form: RequestParameters): Promise<AuthenticatedUser | undefined> {
    const user = await verifyCredentials(this.users, form.get('username') ?? '', form.get('password') ?? '');
    return user ? { id: user.id, username: user.username, amr: PASSWORD_AMR } : undefined;
  }
}
