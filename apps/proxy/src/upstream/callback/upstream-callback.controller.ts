import { Controller, Get, Inject, Logger, Param, Req, Res } from '@nestjs/common';
import {
  answer,
  AUTHORIZATION_SERVER_OPTIONS,
  ClientRepository,
  CookieExchange,
  endpointPath,
  InteractionService,
  PendingAuthorizations,
  RequestParameters,
  SecurityEvents,
  SessionService,
  signInRejectedPage,
  type AuthorizationServerOptions,
  type Decision,
} from '@portcullis/authorization';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  connectPath,
  ConnectTickets,
  requestingApp,
  type ConnectTicket,
} from '../../connections/connect-ticket.service.js';
import { connectedPage } from '../../connections/connect.page.js';
import { SIGN_IN_CONNECTION } from '../../connections/connections.env.js';
import { UpstreamConnections } from '../../connections/upstream-connections.service.js';
import { ConsentCookies } from '../../consent/consent-cookie.js';
import { PROXY_OPTIONS, type ProxyOptions } from '../../proxy.options.js';
import { SignInCookies } from '../sign-in-cookie.js';
import type { UpstreamSignIn } from '../upstream-client.service.js';
import { UpstreamIdentities } from '../upstream-identity.repository.js';
import type { UpstreamSignInState } from '../upstream-state.repository.js';
import { UpstreamStates } from '../upstream-state.repository.js';
import { UpstreamTokens } from '../upstream-token.repository.js';
import { upstreamFailurePage, UpstreamError } from '../upstream.error.js';
import { CallbackRejection, established, type CallbackCheckContext } from './callback-check.js';
import { CALLBACK_CHECKS } from './callback.checks.js';

/**
 * The upstream's redirect back to the proxy (`<issuer>/upstream/callback`). Runs {@link CALLBACK_CHECKS}; a
 * failure is a page, never a redirect, and mints nothing. On success: the upstream `iss` + `sub` become a local
 * user, the upstream tokens are sealed and kept, the consent approved on the proxy's page in this flow (if any) is
 * remembered in a consent cookie, and the interaction walks on as that user's (`InteractionService.completeSignIn`):
 * to the code, or to the one consent page a flow can still need. No `next` or `return_to`: the only place a
 * browser is sent is the pending request's validated redirect URI, or for a sign-in to the connected apps page,
 * that page (with a session started). A connect (its ticket's user signed in, the ticket used up by the checks)
 * stores the tokens for the ticket's user and connection, which makes the connection live again, and ends on a page.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 */
@Controller()
export class UpstreamCallbackController {
  readonly #logger = new Logger('UpstreamCallback');

  constructor(
    private readonly states: UpstreamStates,
    private readonly signInCookies: SignInCookies,
    private readonly pending: PendingAuthorizations,
    private readonly connections: UpstreamConnections,
    private readonly identities: UpstreamIdentities,
    private readonly tokens: UpstreamTokens,
    private readonly interactions: InteractionService,
    private readonly consentCookies: ConsentCookies,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
    private readonly events: SecurityEvents,
    private readonly sessions: SessionService,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly authorization: AuthorizationServerOptions,
    private readonly connectTickets: ConnectTickets,
    private readonly clients: ClientRepository,
  ) {}

  /** The sign-in provider's callback. */
  @Get('upstream/callback')
  callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.#callback(SIGN_IN_CONNECTION, request, reply);
  }

  /** The callback of a connection of `CONNECTIONS`: a redirect URI per provider (RFC 9700 4.4.2). */
  @Get('connections/:connection/callback')
  connectionCallback(
    @Param('connection') connection: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.#callback(connection, request, reply);
  }

  async #callback(arrivedAt: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const cookies = new CookieExchange(request.headers.cookie);
    const context: CallbackCheckContext = {
      params: RequestParameters.fromUrl(request.url),
      cookies,
      arrivedAt,
      states: this.states,
      signInCookies: this.signInCookies,
      pendingAuthorizations: this.pending,
      connections: this.connections,
      identities: this.identities,
      connectTickets: this.connectTickets,
      sessions: this.sessions,
    };
    for (const check of CALLBACK_CHECKS) {
      try {
        await check.run(context);
      } catch (error) {
        if (context.state) this.signInCookies.clear(cookies, context.state);
        return answer(reply, await this.#refuse(context, check.name, error), cookies);
      }
    }
    this.signInCookies.clear(cookies, established(context, 'state'));
    const signIn = established(context, 'signIn');
    const result = established(context, 'result');
    const decision =
      signIn.purpose === 'connect'
        ? await this.#connect(established(context, 'connectTicket'), result)
        : await this.#complete(cookies, signIn, result, context.connectTicket);
    answer(reply, decision, cookies);
  }

  /**
   * The ticket's user connected (signed in at the sign-in provider as themselves, `connect-identity.check.ts`, or at
   * another connection's provider in their own session here, `connect-session.check.ts`) and the ticket is used up:
   * the tokens become that connection's. No session is started and the browser is sent nowhere: the page says to go
   * back to the app.
   */
  async #connect(ticket: ConnectTicket, result: UpstreamSignIn): Promise<Decision> {
    await this.tokens.store(ticket.userId, ticket.connection, result.issuer, result);
    const upstream = {
      upstream: result.issuer,
      ...(result.provider === 'oidc' ? {} : { provider: result.provider }),
    };
    // Connecting the sign-in provider again is a sign-in there; any other connection's account is its own.
    if (ticket.connection === SIGN_IN_CONNECTION) {
      await this.events.record('sign_in.succeeded', {
        userId: ticket.userId,
        detail: { ...upstream, page: 'connect', connection: ticket.connection },
      });
    }
    await this.events.record('upstream_connection.connected', {
      userId: ticket.userId,
      detail: { ...upstream, connection: ticket.connection, subject: result.subject },
    });
    const host = this.connections.get(ticket.connection)?.host ?? new URL(result.issuer).host;
    const html = connectedPage({ host, ...(await requestingApp(this.clients, ticket)) });
    return { kind: 'page', status: 200, html };
  }

  async #complete(
    cookies: CookieExchange,
    signIn: Exclude<UpstreamSignInState, { purpose: 'connect' }>,
    result: UpstreamSignIn,
    ticket: ConnectTicket | undefined,
  ) {
    const user = await this.identities.userFor(result, result.displayName, result.profile);
    await this.tokens.store(user.id, SIGN_IN_CONNECTION, result.issuer, result);
    await this.events.record('sign_in.succeeded', {
      userId: user.id,
      detail: {
        upstream: result.issuer,
        ...(result.provider === 'oidc' ? {} : { provider: result.provider }),
        ...(signIn.purpose === 'account' ? { page: 'account' } : {}),
      },
    });
    // A sign-in to the connected apps page: a session, and back to the page; on the way to connect a connection for
    // the ticket's user (who this is, `connect-identity.check.ts`), back to the connect link instead.
    if (signIn.purpose === 'account') {
      await this.sessions.start(cookies, user.id);
      const back =
        ticket && signIn.ticket
          ? `${endpointPath(this.authorization.issuer, connectPath(ticket.connection))}?${new URLSearchParams({ ticket: signIn.ticket }).toString()}`
          : endpointPath(this.authorization.issuer, 'account');
      return { kind: 'redirect' as const, location: back };
    }
    // What this browser approved on the proxy's page in this flow becomes its consent cookie, once the sign-in
    // has been accepted for the browser that started the flow.
    return this.interactions.completeSignIn(signIn.interaction, cookies, user, (flow) => {
      const approved = flow.progress.approvedScopes;
      if (!approved) return;
      const { clientId, resource } = flow.request;
      this.consentCookies.set(cookies, { clientId, resource, scopes: approved });
    });
  }

  async #refuse(context: CallbackCheckContext, check: string, error: unknown) {
    if (error instanceof CallbackRejection) {
      this.#logger.warn({ check, reason: error.reason }, 'upstream callback refused');
      await this.events.record('sign_in.failed', { detail: { upstream: true, reason: error.reason } });
      return { kind: 'page' as const, status: error.status, html: signInRejectedPage(error.reason) };
    }
    // Anything else is a fault of ours: the exception filter answers server_error and logs it.
    if (!(error instanceof UpstreamError)) throw error;
    this.#logger.warn(
      { check, failure: error.failure, err: error.cause ?? error },
      'upstream sign-in failed',
    );
    // The user said no upstream, and the response verified (iss, state): the client hears access_denied, as the
    // redirect trust policy allows.
    if (error.failure === 'denied' && context.signIn?.purpose === 'authorization' && context.pending) {
      return this.interactions.fail(
        context.signIn.interaction,
        context.cookies,
        'access_denied',
        'the user denied the request',
      );
    }
    return upstreamFailurePage(error.failure, context.upstream?.options ?? this.options.upstream);
  }
}
