import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  CLIENT_SOURCE,
  InteractionService,
  PendingAuthorizations,
  RequestParameters,
  SessionService,
  errorPage,
  refusedUnsafeParameters,
  sendPage,
  type AuthorizationServerOptions,
  type ClientSource,
  type OAuthClient,
  type ValidatedAuthorization,
} from '@portcullis/authorization';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizationResponseUrl } from '../http/authorization-response.js';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { expiredPage } from '../upstream/upstream-pages.js';
import { UpstreamRedirect } from '../upstream/upstream-redirect.service.js';
import { consentCsrfValid } from './checks/consent-csrf.check.js';
import { ClientTrust } from './client-trust.js';
import { deniedPage } from './consent.page.js';

/**
 * The answer to the proxy's consent page. Approve: the browser goes upstream with the approved scopes recorded in
 * the `state` row (the per-user registry and the consent cookie are written once the upstream says who the user
 * is). Deny: `access_denied` for the client; sent automatically only to a client the operator registered, offered
 * as a link for any other (RFC 9700 4.11.2), so a client nobody approved is never sent a request by the proxy.
 * No `next` or `return_to`: where the browser goes is decided by the pending request alone.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.11.2
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
 */
@Controller()
export class UpstreamConsentController {
  constructor(
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    private readonly pending: PendingAuthorizations,
    private readonly sessions: SessionService,
    private readonly interactions: InteractionService,
    private readonly trust: ClientTrust,
    private readonly redirect: UpstreamRedirect,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    @Inject(PROXY_OPTIONS) private readonly proxy: ProxyOptions,
  ) {}

  @Post('upstream/consent')
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = RequestParameters.fromForm((request as FastifyRequest & { rawBody?: Buffer }).rawBody);
    if (refusedUnsafeParameters(reply, form)) return;
    const handle = form.get('interaction');
    const pending = await this.pending.find(handle);
    if (!handle || !pending) return sendPage(reply, 400, expiredPage());
    if (!consentCsrfValid(this.sessions, request, handle, form.get('csrf'))) {
      return sendPage(
        reply,
        403,
        errorPage('invalid_request', 'the form expired or was not sent from this browser'),
      );
    }
    const client = await this.clients.find(pending.clientId);
    if (!client) return sendPage(reply, 400, errorPage('invalid_client', 'the client no longer exists'));

    const decision = form.get('decision');
    if (decision === 'deny') return this.#deny(reply, handle, pending, client, 'the user denied the request');
    if (decision !== 'approve')
      return sendPage(reply, 400, errorPage('invalid_request', 'decision is required'));
    // Only the scopes left ticked, and only among those requested: the form cannot widen the request.
    const ticked = new Set(form.all('scope'));
    const approved = pending.scopes.filter((scope) => ticked.has(scope));
    if (approved.length === 0) return this.#deny(reply, handle, pending, client, 'no scope was approved');
    return this.redirect.forward(reply, { handle, pending, approvedScopes: approved });
  }

  async #deny(
    reply: FastifyReply,
    handle: string,
    pending: ValidatedAuthorization,
    client: OAuthClient,
    description: string,
  ): Promise<void> {
    const standing = await this.trust.standing(client, this.proxy.recentClientAge);
    if (standing.trusted) return this.interactions.deny(reply, handle, pending);
    if (!(await this.pending.take(handle))) return sendPage(reply, 400, expiredPage());
    const returnUrl = authorizationResponseUrl(pending.redirectUri, this.options.issuer, {
      error: 'access_denied',
      error_description: description,
      state: pending.state,
    });
    sendPage(reply, 200, deniedPage(client.clientName ?? client.clientId, returnUrl));
  }
}
