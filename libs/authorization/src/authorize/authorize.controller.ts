import { Controller, Get, Inject, Logger, Req, Res } from '@nestjs/common';
import { DatabaseUnavailableError, translateDatabaseError } from '@portcullis/persistence';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_SOURCE, type ClientSource } from '../clients/client.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { CookieExchange } from '../http/cookies.js';
import { RequestParameters } from '../http/request-parameters.js';
import { ResourceRegistry } from '../resources/resource-registry.js';
import { SessionService } from '../sessions/session.service.js';
import { answer } from './flow/answer.js';
import { InteractionService } from './flow/interaction.service.js';
import { RedirectTrust } from './flow/redirect-trust.js';
import { errorPage } from './pages/error.page.js';
import { established, type AuthorizationCheckContext } from './authorization-check.js';
import { AUTHORIZATION_CHECKS } from './authorization.checks.js';

/**
 * The authorization endpoint (GET). Runs {@link AUTHORIZATION_CHECKS} in order: an error before the redirect URI
 * is validated is an HTML page; any later one is answered as the {@link RedirectTrust} policy allows (to the
 * client with `error`, `error_description`, `state` and `iss`, or as a page with that link). A request that
 * passes goes on to the interaction (flow/interaction.service.ts), which walks sign-in, consent and
 * confirmation to the code. No CORS: this endpoint is navigated to, never fetched.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2
 */
@Controller()
export class AuthorizeController {
  readonly #logger = new Logger('Authorize');

  constructor(
    @Inject(CLIENT_SOURCE) private readonly clients: ClientSource,
    private readonly resources: ResourceRegistry,
    private readonly interactions: InteractionService,
    private readonly sessions: SessionService,
    private readonly trust: RedirectTrust,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  @Get('authorize')
  async authorize(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = RequestParameters.fromUrl(request.url);
    const cookies = new CookieExchange(request.headers.cookie);
    const context: AuthorizationCheckContext = {
      params,
      issuer: this.options.issuer,
      revision: this.options.revision,
      clients: this.clients,
      resources: this.resources,
      extensions: this.options.extensions,
      allowedRedirectSchemes: this.options.allowedRedirectSchemes ?? [],
    };
    for (const check of AUTHORIZATION_CHECKS) {
      try {
        await check.run(context);
      } catch (error) {
        const oauth = this.#asOAuthError(error, check.name);
        if (oauth instanceof DatabaseUnavailableError) throw oauth;
        if (check.beforeRedirect) {
          const status = oauth.status === 500 ? 500 : 400;
          return answer(reply, { kind: 'page', status, html: errorPage(oauth.code, oauth.description) });
        }
        const state = params.repeated.includes('state') ? undefined : params.get('state');
        const target = {
          client: established(context, 'client'),
          redirectUri: established(context, 'redirectUri'),
          ...(state ? { state } : {}),
        };
        const session = await this.sessions.current(cookies);
        return answer(reply, await this.trust.error(target, session, oauth.code, oauth.description));
      }
    }
    const state = params.get('state');
    const nonce = params.get('nonce');
    const decision = await this.interactions.begin(
      {
        clientId: established(context, 'client').clientId,
        redirectUri: established(context, 'redirectUri'),
        redirectUriSent: context.redirectUriSent !== false,
        ...(state ? { state } : {}),
        codeChallenge: established(context, 'codeChallenge'),
        resource: established(context, 'resource').uri,
        scopes: established(context, 'scopes'),
        ...(nonce ? { nonce } : {}),
        prompt: [...established(context, 'prompt')],
        ...(context.confirmation ? { confirmation: context.confirmation } : {}),
        // What extensions' token claims read later: the request as their checks saw it, and what they attached.
        authorizationRequest: { params: params.entries(), resources: [...params.resources] },
        ...(context.attachments && Object.keys(context.attachments).length > 0
          ? { attachments: context.attachments }
          : {}),
      },
      established(context, 'client'),
      cookies,
    );
    answer(reply, decision, cookies);
  }

  #asOAuthError(caught: unknown, check: string): OAuthError {
    const error = translateDatabaseError(caught);
    if (error instanceof OAuthError) return error;
    this.#logger.error({ err: error, check }, 'authorization check failed unexpectedly');
    return new OAuthError('server_error', 'the request could not be processed');
  }
}
