import { Inject, Injectable } from '@nestjs/common';
import {
  CLIENT_SOURCE,
  InteractionService,
  PendingAuthorizations,
  ResourceRegistry,
  sendPage,
  type AuthenticatedUser,
  type Authenticator,
  type ClientSource,
  type LoginContext,
} from '@portcullis/authorization';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientTrust } from '../consent/client-trust.js';
import { ConsentCookies } from '../consent/consent-cookie.js';
import { consentPage } from '../consent/consent.page.js';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { expiredPage } from './upstream-pages.js';
import { UpstreamRedirect } from './upstream-redirect.service.js';

/**
 * The proxy's way to sign people in: at the upstream authorization server. `/login` first shows the proxy's own
 * consent page (spec 5.6.6: consent for each client before forwarding), unless this browser holds a valid consent
 * cookie for this very client, resource and scopes and the request does not ask for consent again; the consent
 * form posts to `/upstream/consent`; only then does the browser go upstream. The upstream callback finishes the
 * sign-in through `InteractionService`. There are no local passwords: `verify` accepts nothing.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#third-party-authorization-flow
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 */
@Injectable()
export class UpstreamAuthenticator implements Authenticator {
  constructor(
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    private readonly pending: PendingAuthorizations,
    private readonly interactions: InteractionService,
    private readonly resources: ResourceRegistry,
    private readonly trust: ClientTrust,
    private readonly consentCookies: ConsentCookies,
    private readonly redirect: UpstreamRedirect,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
  ) {}

  async showLogin(context: LoginContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const pending = await this.pending.find(context.interaction);
    const client = pending ? await this.clients.find(pending.clientId) : undefined;
    if (!pending || !client) return sendPage(reply, 400, expiredPage());
    if (!pending.prompt.includes('consent') && this.consentCookies.covers(request, pending)) {
      return this.redirect.forward(reply, { handle: context.interaction, pending, approvedScopes: [] });
    }
    const resource = this.resources.list().find((candidate) => candidate.uri === pending.resource);
    sendPage(
      reply,
      200,
      consentPage({
        client,
        standing: await this.trust.standing(client, this.options.recentClientAge),
        pending,
        resourceName: resource?.name ?? pending.resource,
        upstreamHost: new URL(this.options.upstream.issuer).host,
        handle: context.interaction,
        csrf: context.csrfToken,
        action: this.interactions.path('upstream/consent'),
      }),
    );
  }

  /** Nobody signs in with a password at the proxy: a POST to `/login` only shows the consent page again. */
  async verify(): Promise<AuthenticatedUser | undefined> {
    return undefined;
  }
}
