import { Controller, HttpCode, Inject, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answer, sendPage } from '../authorize/flow/answer.js';
import { endpointPath } from '../authorize/flow/paths.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SessionService } from '../sessions/session.service.js';
import { accountSessionForm } from './account-form.js';
import { ACCOUNT_SECTION_NAME, ACCOUNT_SECTIONS, type AccountSection } from './account-section.js';
import { accountRefusedPage } from './account.page.js';

/**
 * The forms of the app's sections of the account page: `POST /account/<section>/<action>`. A path no section answers
 * is not found, whatever the form; a form without its session or CSRF token (the page's, bound to the session) is
 * refused with the page's 403 and reaches no section, so nothing changes; an accepted one is the section's, for the
 * person signed in, and the browser goes back to the page (303), with the section's notice when it has one.
 * Registered only when the app has sections.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF)
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-15.4.4 (303 See Other after a POST)
 */
@Controller()
export class AccountSectionsController {
  readonly #sections: ReadonlyMap<string, AccountSection>;

  constructor(
    private readonly sessions: SessionService,
    @Inject(ACCOUNT_SECTIONS) sections: readonly AccountSection[],
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {
    this.#sections = new Map(sections.map((section) => [section.name, section]));
  }

  @Post('account/:section/:action')
  @HttpCode(303)
  async submit(
    @Param('section') name: string,
    @Param('action') action: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const section = this.#sections.get(name);
    if (!section?.actions.includes(action)) throw new NotFoundException();
    const posted = await accountSessionForm(this.sessions, request);
    if (!posted) {
      sendPage(reply, 403, accountRefusedPage(this.#path('account')));
      return;
    }
    const { cookies, form, session } = posted;
    const outcome = await section.submit({ userId: session.userId, action, form, cookies });
    if (outcome.next) {
      answer(reply, outcome.next, cookies);
      return;
    }
    const notice = outcome.notice;
    if (notice !== undefined && !ACCOUNT_SECTION_NAME.test(notice)) {
      throw new Error(`account section ${name} answered a notice that is not a name`);
    }
    const query = notice === undefined ? '' : `?${new URLSearchParams({ [name]: notice }).toString()}`;
    answer(reply, { kind: 'redirect', location: `${this.#path('account')}${query}` }, cookies);
  }

  #path(path: string): string {
    return endpointPath(this.options.issuer, path);
  }
}
