import { Controller, Get, HttpCode, Inject, Optional, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answer, sendPage, seeOther } from '../authorize/flow/answer.js';
import { endpointPath } from '../authorize/flow/paths.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SecurityEvents } from '../events/security-events.js';
import { CookieExchange } from '../http/cookies.js';
import { rawBody } from '../http/raw-body.js';
import { RequestParameters } from '../http/request-parameters.js';
import { SessionService } from '../sessions/session.service.js';
import { RateLimit } from '../http/route-prologue.js';
import { UserRepository } from '../users/user.repository.js';
import { ACCOUNT, accountSessionForm } from './account-form.js';
import { ACCOUNT_SECTION_NAME, ACCOUNT_SECTIONS, type AccountSection } from './account-section.js';
import { ACCOUNT_SIGN_IN, type AccountSignIn } from './account-sign-in.js';
import { accountPage, accountRefusedPage, csrfField } from './account.page.js';
import { AccountRepository } from './account.repository.js';

/**
 * `/account`: a person signed in sees every MCP client they approved (its name, client ID and how it was registered,
 * the scopes and resource, when approved and last used) and revokes one: its grants and tokens are revoked and the
 * consent removed, so its next authorization asks again (Keycloak's account console "Applications", GitHub's
 * "Authorized OAuth Apps"). Plain HTML forms with no JavaScript, CSRF tokens bound to the session (or, for the sign-in
 * form, to the browser), the pages' headers (no framing, no caching), the sign-in rate limited like `/login`. How
 * a person signs in is the app's ({@link AccountSignIn}): a password here, the upstream at the proxy. The app may add
 * sections of its own below the apps ({@link AccountSection}, `ACCOUNT_SECTIONS`; their forms are
 * `AccountSectionsController`'s).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF)
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.1 (revoking a grant revokes its tokens)
 */
@Controller()
export class AccountController {
  constructor(
    private readonly sessions: SessionService,
    private readonly users: UserRepository,
    private readonly accounts: AccountRepository,
    private readonly events: SecurityEvents,
    @Inject(ACCOUNT_SIGN_IN) private readonly signIn: AccountSignIn,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    @Optional() @Inject(ACCOUNT_SECTIONS) private readonly sections: readonly AccountSection[] = [],
  ) {}

  @Get('account')
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const cookies = new CookieExchange(request.headers.cookie);
    const query = RequestParameters.fromUrl(request.url);
    const session = await this.sessions.current(cookies);
    if (!session) {
      const csrf = this.sessions.loginCsrfToken(this.sessions.browserBinding(cookies), ACCOUNT);
      const signIn = this.signIn.page({ action: this.#path('account/login'), csrf, query });
      return this.#page(reply, cookies, signIn.status, signIn.html);
    }
    const user = await this.users.findById(session.userId);
    const apps = await this.accounts.connectedApps(session.userId);
    // A fixed message, never text from the URL (a link could otherwise put its words on this page).
    const revoked = query.get('revoked') === '1';
    const csrf = this.sessions.consentCsrfToken(session, ACCOUNT);
    const sections = await Promise.all(
      this.sections.map(async (section) => {
        const notice = query.get(section.name);
        const html = await section.render({
          userId: session.userId,
          csrf,
          csrfField: csrfField(csrf),
          action: (action) => this.#path(`account/${section.name}/${action}`),
          ...(notice !== undefined && ACCOUNT_SECTION_NAME.test(notice) ? { notice } : {}),
        });
        return { name: section.name, html };
      }),
    );
    return this.#page(
      reply,
      cookies,
      200,
      accountPage({
        username: user?.username ?? session.userId,
        apps,
        revokeAction: this.#path('account/revoke'),
        signOutAction: this.#path('account/logout'),
        csrf,
        revoked,
        ...(sections.length > 0 ? { sections } : {}),
      }),
    );
  }

  /** The sign-in form: its CSRF token is bound to this browser; what signing in means is the app's. */
  @Post('account/login')
  @HttpCode(303)
  @RateLimit('login')
  async signInSubmit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const cookies = new CookieExchange(request.headers.cookie);
    const form = RequestParameters.fromForm(rawBody(request));
    const binding = this.sessions.existingBrowserBinding(cookies);
    if (
      form.unsafe !== undefined ||
      !binding ||
      !SessionService.tokensMatch(this.sessions.loginCsrfToken(binding, ACCOUNT), form.get('csrf'))
    ) {
      return this.#refused(reply);
    }
    answer(reply, await this.signIn.submit(cookies, form), cookies);
  }

  @Post('account/revoke')
  @HttpCode(303)
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const posted = await accountSessionForm(this.sessions, request);
    if (!posted) return this.#refused(reply);
    const { cookies, form, session } = posted;
    const clientId = form.get('client_id') ?? '';
    // `resource` is read apart from the other fields (RFC 8707 lets a request repeat it): exactly one here.
    const resource = form.resources.length === 1 ? (form.resources[0] ?? '') : '';
    // Only what this person approved can be revoked: the pair must be on their own list.
    const app = (await this.accounts.connectedApps(session.userId)).find(
      (entry) => entry.clientId === clientId && entry.resource === resource,
    );
    if (app && (await this.accounts.forget(session.userId, clientId, resource))) {
      await this.events.record('consent.revoked', {
        userId: session.userId,
        clientId,
        detail: { resource, by: 'user' },
      });
      return this.#redirect(reply, cookies, `${this.#path('account')}?revoked=1`);
    }
    return this.#redirect(reply, cookies, this.#path('account'));
  }

  /** Signs out: the session ends here and for every authorization it would have let through without a sign-in. */
  @Post('account/logout')
  @HttpCode(303)
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const posted = await accountSessionForm(this.sessions, request);
    if (!posted) return this.#refused(reply);
    const { cookies, session } = posted;
    await this.sessions.end(cookies, session);
    return this.#redirect(reply, cookies, this.#path('account'));
  }

  #path(path: string): string {
    return endpointPath(this.options.issuer, path);
  }

  #page(reply: FastifyReply, cookies: CookieExchange, status: number, html: string): void {
    if (cookies.outgoing.length > 0) reply.header('set-cookie', cookies.outgoing);
    sendPage(reply, status, html);
  }

  #redirect(reply: FastifyReply, cookies: CookieExchange, location: string): void {
    if (cookies.outgoing.length > 0) reply.header('set-cookie', cookies.outgoing);
    seeOther(reply, location);
  }

  /** A form without its CSRF token (or its session): nothing is changed, and the page says why. */
  #refused(reply: FastifyReply): void {
    sendPage(reply, 403, accountRefusedPage(this.#path('account')));
  }
}
