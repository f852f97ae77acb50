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
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { UpstreamRedirect } from '../upstream/upstream-redirect.service.js';
import { UpstreamVault } from '../upstream/upstream-vault.service.js';
import { connectPath, ConnectTickets, requestingApp, type ConnectTicket } from './connect-ticket.service.js';
import { connectPage, connectRefusedPage } from './connect.page.js';

/** A ticket that passed every check of the link, with its sealed form (what the form posts and the state keeps). */
interface CheckedTicket {
  readonly sealed: string;
  readonly ticket: ConnectTicket;
}

/**
 * `<issuer>/connections/<connection>/connect?ticket=...`: the link an RFC 8693 exchange refused for want of a live
 * connection hands back as `interaction_uri`, for the resource server to show the user (MCP URL-mode elicitation).
 * The GET shows one button and changes nothing; its POST, with the page's CSRF token (bound to this browser and to
 * the ticket), sends the browser to sign in afresh at the provider. The upstream callback connects only if the person
 * who signs in there is the user the ticket names, and uses the ticket up. A ticket that does not open, has expired,
 * was used, or is for another connection than the path's, gets a 400 page; nothing is stored for it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF)
 */
@Controller()
export class ConnectController {
  readonly #logger = new Logger('Connect');

  constructor(
    private readonly tickets: ConnectTickets,
    private readonly vault: UpstreamVault,
    private readonly redirect: UpstreamRedirect,
    private readonly sessions: SessionService,
    private readonly clients: ClientRepository,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
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
    const html = connectPage({
      host: this.#host(),
      ...(await requestingApp(this.clients, checked.ticket)),
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
    answer(reply, await this.redirect.forConnect(cookies, checked.sealed), cookies);
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
    if (!this.vault.has(ticket.connection) || ticket.connection !== connection) return invalid;
    return { sealed, ticket };
  }

  /** The CSRF token of the connect form: bound to this browser and to the one ticket. */
  #csrf(binding: string, ticket: ConnectTicket): string {
    return this.sessions.loginCsrfToken(binding, `connect\n${ticket.jti}`);
  }

  #host(): string {
    return new URL(this.options.upstream.issuer).host;
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
