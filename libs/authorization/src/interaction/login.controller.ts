import { Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_SOURCE, type ClientSource } from '../clients/client.js';
import { RequestParameters } from '../http/request-parameters.js';
import { SessionService } from '../sessions/session.service.js';
import { RateLimit, RateLimitGuard } from '../throttling/rate-limit.guard.js';
import { AUTHENTICATOR, type Authenticator } from './authenticator.js';
import { errorPage, page, refusedUnsafeParameters, sendPage } from './html.js';
import { InteractionService, seeOther } from './interaction.service.js';
import { PendingAuthorizations } from './pending-authorization.js';

/**
 * The login step of a pending authorization. GET shows the authenticator's page; POST checks the CSRF token
 * (bound to this browser and this request), then the credentials, and answers 303 either way.
 */
@Controller()
export class LoginController {
  constructor(
    @Inject(AUTHENTICATOR) private readonly authenticator: Authenticator,
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    private readonly pending: PendingAuthorizations,
    private readonly sessions: SessionService,
    private readonly interactions: InteractionService,
  ) {}

  @Get('login')
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = RequestParameters.fromUrl(request.url);
    if (refusedUnsafeParameters(reply, params)) return;
    const handle = params.get('interaction');
    const pending = await this.pending.find(handle);
    if (!handle || !pending) return sendPage(reply, 400, expiredPage());
    const client = await this.clients.find(pending.clientId);
    const binding = this.sessions.browserBinding(request, reply);
    await this.authenticator.showLogin(
      {
        interaction: handle,
        csrfToken: this.sessions.loginCsrfToken(binding, handle),
        action: this.interactions.path('login'),
        clientName: client?.clientName ?? pending.clientId,
        failed: params.get('failed') === '1',
      },
      request,
      reply,
    );
  }

  @Post('login')
  @HttpCode(303)
  @UseGuards(RateLimitGuard)
  @RateLimit('login')
  async submit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = RequestParameters.fromForm((request as FastifyRequest & { rawBody?: Buffer }).rawBody);
    if (refusedUnsafeParameters(reply, form)) return;
    const handle = form.get('interaction');
    const pending = await this.pending.find(handle);
    if (!handle || !pending) return sendPage(reply, 400, expiredPage());
    const binding = this.sessions.existingBrowserBinding(request);
    if (
      !binding ||
      !SessionService.tokensMatch(this.sessions.loginCsrfToken(binding, handle), form.get('csrf'))
    ) {
      return sendPage(
        reply,
        403,
        errorPage('invalid_request', 'the form expired or was not sent from this browser'),
      );
    }
    const user = await this.authenticator.verify(form);
    if (!user) {
      return seeOther(
        reply,
        `${this.interactions.path('login')}?interaction=${encodeURIComponent(handle)}&failed=1`,
      );
    }
    await this.interactions.completeLogin(handle, user, reply);
  }

  @Get('login/expired')
  expired(@Res() reply: FastifyReply): void {
    sendPage(reply, 400, expiredPage());
  }
}

function expiredPage(): string {
  return page(
    'Request expired',
    `<h1>This sign-in request has expired</h1>
<p>Go back to the application and start again.</p>`,
  );
}
