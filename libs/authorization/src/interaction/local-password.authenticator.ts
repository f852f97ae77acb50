import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { verifyAgainstDummy, verifyPassword } from '../users/password-hasher.js';
import { UserRepository } from '../users/user.repository.js';
import type { AuthenticatedUser, Authenticator, LoginContext } from './authenticator.js';
import { escapeHtml, page, sendPage } from './html.js';

/** Usernames and passwords are bounded before any hashing, so a huge value costs nothing. */
const MAX_FIELD_LENGTH = 256;

/** Signs local users in with a username and an argon2id-hashed password, on a plain HTML form. */
@Injectable()
export class LocalPasswordAuthenticator implements Authenticator {
  constructor(
    private readonly users: UserRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async showLogin(context: LoginContext, _request: FastifyRequest, reply: FastifyReply): Promise<void> {
    sendPage(reply, context.failed ? 401 : 200, loginPage(context, this.options.loginHint));
  }

  async verify(form: RequestParameters): Promise<AuthenticatedUser | undefined> {
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    if (username.length > MAX_FIELD_LENGTH || password.length > MAX_FIELD_LENGTH) return undefined;
    const user = username ? await this.users.findByUsername(username) : null;
    if (!user) return verifyAgainstDummy(password).then(() => undefined);
    return (await verifyPassword(user.passwordHash, password))
      ? { id: user.id, username: user.username }
      : undefined;
  }
}

function loginPage(context: LoginContext, hint: string | undefined): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(context.clientName)}</strong></p>
${context.failed ? '<p class="error" role="alert">Wrong username or password.</p>' : ''}
<form method="post" action="${escapeHtml(context.action)}">
<input type="hidden" name="interaction" value="${escapeHtml(context.interaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(context.csrfToken)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${hint ? `<p class="hint">${escapeHtml(hint)}</p>` : ''}`,
  );
}
