import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_SOURCE, type ClientSource, type OAuthClient } from '../clients/client.js';
import { RequestParameters } from '../http/request-parameters.js';
import { ResourceRegistry } from '../resources/resource-registry.js';
import { SessionService } from '../sessions/session.service.js';
import { hostOf, isLocalRedirect } from './client-display.js';
import { errorPage, escapeHtml, page, refusedUnsafeParameters, sendPage } from './html.js';
import { InteractionService, seeOther } from './interaction.service.js';
import { PendingAuthorizations, type ValidatedAuthorization } from './pending-authorization.js';

/** What each scope means, for people. */
const SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: 'Know who you are',
  offline_access: 'Keep access while you are away (refresh tokens)',
};

/**
 * The consent step. GET shows who is asking (client name, client ID host, redirect host), for which resource and
 * which scopes; POST needs the session's CSRF token for this request and a `decision` of `approve` or `deny`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.16 (clickjacking: frame-ancestors, X-Frame-Options)
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.2 (client impersonation: show the client's identity)
 */
@Controller()
export class ConsentController {
  constructor(
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    private readonly pending: PendingAuthorizations,
    private readonly sessions: SessionService,
    private readonly interactions: InteractionService,
    private readonly resources: ResourceRegistry,
  ) {}

  @Get('consent')
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = RequestParameters.fromUrl(request.url);
    if (refusedUnsafeParameters(reply, params)) return;
    const handle = params.get('interaction');
    const pending = await this.pending.find(handle);
    if (!handle || !pending) return seeOther(reply, this.interactions.path('login/expired'));
    const session = await this.sessions.current(request);
    if (!session)
      return seeOther(reply, `${this.interactions.path('login')}?interaction=${encodeURIComponent(handle)}`);
    const client = await this.clients.find(pending.clientId);
    if (!client) return sendPage(reply, 400, errorPage('invalid_client', 'the client no longer exists'));
    sendPage(
      reply,
      200,
      this.#page(client, pending, handle, this.sessions.consentCsrfToken(session, handle)),
    );
  }

  @Post('consent')
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = RequestParameters.fromForm((request as FastifyRequest & { rawBody?: Buffer }).rawBody);
    if (refusedUnsafeParameters(reply, form)) return;
    const handle = form.get('interaction');
    const session = await this.sessions.current(request);
    const pending = await this.pending.find(handle);
    if (!handle || !pending)
      return sendPage(reply, 400, errorPage('invalid_request', 'this request has expired'));
    if (
      !session ||
      !SessionService.tokensMatch(this.sessions.consentCsrfToken(session, handle), form.get('csrf'))
    ) {
      return sendPage(
        reply,
        403,
        errorPage('invalid_request', 'the form expired or was not sent from this session'),
      );
    }
    const decision = form.get('decision');
    if (decision === 'deny') return this.interactions.deny(reply, handle, pending);
    if (decision !== 'approve')
      return sendPage(reply, 400, errorPage('invalid_request', 'decision is required'));

    // Only the scopes left ticked, and only among those requested: the form cannot widen the request.
    const ticked = new Set(form.all('scope'));
    const approved = pending.scopes.filter((scope) => ticked.has(scope));
    if (approved.length === 0) {
      if (!(await this.pending.take(handle))) return seeOther(reply, this.interactions.path('login/expired'));
      return this.interactions.redirectError(reply, pending, 'access_denied', 'no scope was approved');
    }
    return this.interactions.approve(reply, handle, pending, session, approved);
  }

  #page(client: OAuthClient, pending: ValidatedAuthorization, handle: string, csrf: string): string {
    const resource = this.resources.list().find((candidate) => candidate.uri === pending.resource);
    const clientName = client.clientName ?? client.clientId;
    const localOnly = client.redirectUris.length > 0 && client.redirectUris.every(isLocalRedirect);
    const scopes = pending.scopes
      .map(
        (scope) =>
          `<li><label><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> <code>${escapeHtml(
            scope,
          )}</code>${SCOPE_TEXT[scope] ? ` ${escapeHtml(SCOPE_TEXT[scope])}` : ''}</label></li>`,
      )
      .join('\n');
    return page(
      'Allow access?',
      `<h1>Allow <strong>${escapeHtml(clientName)}</strong> to access ${escapeHtml(resource?.name ?? pending.resource)}?</h1>
${localOnly ? '<p class="warning">This application only runs on your own computer (all its redirect addresses are local). Approve it only if you started it yourself.</p>' : ''}
<dl>
<dt>Application</dt><dd>${escapeHtml(clientName)}</dd>
<dt>Client ID host</dt><dd>${escapeHtml(hostOf(client.clientId) ?? client.clientId)}</dd>
<dt>Will return you to</dt><dd>${escapeHtml(hostOf(pending.redirectUri) ?? pending.redirectUri)}</dd>
<dt>Resource</dt><dd>${escapeHtml(pending.resource)}</dd>
</dl>
<form method="post" action="${escapeHtml(this.interactions.path('consent'))}">
<input type="hidden" name="interaction" value="${escapeHtml(handle)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<p>It asks to:</p>
<ul class="scopes">
${scopes}
</ul>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
    );
  }
}
