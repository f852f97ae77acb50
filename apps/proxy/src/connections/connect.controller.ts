import { Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import {
  answer,
  AUTHORIZATION_SERVER_OPTIONS,
  ClientRepository,
  CookieExchange,
  endpointPath,
  RequestParameters,
  SessionService,
  type AuthorizationServerOptions,
} from '@portcullis/authorization';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UpstreamRedirect } from '../upstream/upstream-redirect.service.js';
import { UpstreamTokens } from '../upstream/upstream-token.repository.js';
import { connectPath, ConnectTickets, requestingApp, type ConnectTicket } from './connect-ticket.service.js';
import { connectPage, connectRefusedPage } from './connect.page.js';
import { SIGN_IN_CONNECTION } from './connections.env.js';
import { UpstreamConnections, type UpstreamConnection } from './upstream-connections.service.js';

/** A ticket that passed every check of the link, with its sealed form (what the form posts and the state keeps). */
interface CheckedTicket {
  readonly sealed: string;
  readonly ticket: ConnectTicket;
  readonly connection: UpstreamConnection;
}

/**
 * `<issuer>/connections/<connection>/connect?ticket=...`: the link an RFC 8693 exchange refused for want of a live
 * connection hands back as `interaction_uri`, for the resource server to show the user (MCP URL-mode elicitation),
 * and where the account page's Connect buttons lead. The GET shows one button and changes nothing; its POST, with the
 * page's CSRF token (bound to this browser and to the ticket), sends the browser to sign in afresh at the provider.
 * Who may complete it is the user the ticket names: for the sign-in provider, the person who signs in there (the
 * callback compares identities); for any other connection, whose account there is not the sign-in one, the proxy's
 * session in this browser: without one the person signs in at the sign-in provider first (and comes back here only
 * if they are that user), with another user's the link is refused. The callback uses the ticket up. A ticket that
 * does not open, has expired, was used, or is for another connection than the path's (or one no longer offered),
 * gets a 400 page; nothing is stored for it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF)
 */
@Controller()
export class ConnectController {
  readonly #logger = new Logger('Connect');

  constructor(
    private readonly tickets: ConnectTickets,
    private readonly connections: UpstreamConnections,
    private readonly tokens: UpstreamTokens,
    private readonly redirect: UpstreamRedirect,
    private readonly sessions: SessionService,
    private readonly clients: ClientRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly authorization: AuthorizationServerOptions,
  ) {}

  @Get('connections/:connection/connect')
  async show(
    @Param('connection') connection: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const cookies = new CookieExchange(request.headers.cookie);
    const checked = await this.#check(connection, RequestParameters.fromUrl(request.url));
    if (typeof checked === 'string') return this.#refuse(reply, 400, checked);
    const { ticket } = checked;
    const again =
      ticket.connection === SIGN_IN_CONNECTION ||
      (await this.tokens.connections(ticket.userId)).some((each) => each.connection === ticket.connection);
    const html = connectPage({
      host: checked.connection.host,
      again,
      ...(await requestingApp(this.clients, ticket)),
      action: endpointPath(this.authorization.issuer, connectPath(connection)),
      ticket: checked.sealed,
      csrf: this.#csrf(this.sessions.browserBinding(cookies), checked.ticket),
    });
    answer(reply, { kind: 'page', status: 200, html }, cookies);
  }

  @Post('connections/:connection/connect')
  async submit(
    @Param('connection') connection: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const cookies = new CookieExchange(request.headers.cookie);
    const form = RequestParameters.fromForm(rawBody(request));
    const checked = await this.#check(connection, form);
    if (typeof checked === 'string') return this.#refuse(reply, 400, checked);
    const binding = this.sessions.existingBrowserBinding(cookies);
    if (!binding || !SessionService.tokensMatch(this.#csrf(binding, checked.ticket), form.get('csrf'))) {
      return this.#refuse(
        reply,
        403,
        'This form was not sent from the page the link opened. Open the link again.',
      );
    }
    const { sealed, ticket } = checked;
    const { client } = checked.connection;
    if (ticket.connection === SIGN_IN_CONNECTION) {
      return answer(reply, await this.redirect.forConnect(cookies, sealed, client), cookies);
    }
    // Another provider's account is not the sign-in one: who connects it is the session here.
    const session = await this.sessions.current(cookies);
    if (!session) return answer(reply, await this.redirect.forConnectSignIn(cookies, sealed), cookies);
    if (session.userId !== ticket.userId) {
      return this.#refuse(
        reply,
        403,
        'This link was made for another account than the one signed in here. Nothing was connected.',
      );
    }
    answer(reply, await this.redirect.forConnect(cookies, sealed, client), cookies);
  }

  /** The link's ticket when it can be used for `connection`; otherwise the reason to show (fixed texts only). */
  async #check(connection: string, params: RequestParameters): Promise<CheckedTicket | string> {
    const invalid = 'This link is not valid.';
    const sealed = params.get('ticket');
    if (!sealed || params.repeated.length > 0 || params.unsafe !== undefined) return invalid;
    const reading = await this.tickets.read(sealed);
    if (reading.outcome === 'expired') return 'This link has expired.';
    if (reading.outcome === 'used') return 'This link was used already.';
    if (reading.outcome !== 'valid') return invalid;
    const { ticket } = reading;
    const offered = this.connections.get(ticket.connection);
    if (!offered || ticket.connection !== connection) return invalid;
    return { sealed, ticket, connection: offered };
  }

  /** The CSRF token of the connect form: bound to this browser and to the one ticket. */
  #csrf(binding: string, ticket: ConnectTicket): string {
    return this.sessions.loginCsrfToken(binding, `connect\n${ticket.jti}`);
  }

  #refuse(reply: FastifyReply, status: number, reason: string): void {
    this.#logger.warn({ reason }, 'connect link refused');
    answer(reply, { kind: 'page', status, html: connectRefusedPage(reason) });
  }
}

/** The request body exactly as received (the platform keeps it, `rawBody: true`), for `RequestParameters`. */
function rawBody(request: FastifyRequest): Buffer | undefined {
  return (request as FastifyRequest & { rawBody?: Buffer }).rawBody;
}
