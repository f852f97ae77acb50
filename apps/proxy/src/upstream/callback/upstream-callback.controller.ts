import { Controller, Get, Inject, Logger, Req, Res } from '@nestjs/common';
import {
  InteractionService,
  PendingAuthorizations,
  RequestParameters,
  SessionService,
  type ValidatedAuthorization,
} from '@portcullis/authorization';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsentCookies } from '../../consent/consent-cookie.js';
import { PROXY_OPTIONS, type ProxyOptions } from '../../proxy.options.js';
import { SignInCookies } from '../sign-in-cookie.js';
import { UpstreamClient, type UpstreamSignIn } from '../upstream-client.service.js';
import { UpstreamIdentities } from '../upstream-identity.repository.js';
import { sendCallbackRejectedPage, sendUpstreamErrorPage } from '../upstream-pages.js';
import type { UpstreamSignInState } from '../upstream-state.repository.js';
import { UpstreamStates } from '../upstream-state.repository.js';
import { UpstreamTokens } from '../upstream-token.repository.js';
import { UpstreamError } from '../upstream.error.js';
import { CallbackRejection, established, type CallbackCheckContext } from './callback-check.js';
import { CALLBACK_CHECKS } from './callback.checks.js';

/**
 * The upstream's redirect back to the proxy (`<issuer>/upstream/callback`). Runs {@link CALLBACK_CHECKS}; a
 * failure is a page, never a redirect, and mints nothing. On success: the upstream `iss` + `sub` become a local
 * user, the upstream tokens are sealed and kept, and the authorization continues as the user's: with the scopes
 * approved on the consent page just now (recorded in the per-user registry and the consent cookie, then the code),
 * or, when a consent cookie skipped the page, through the ordinary login completion, which issues a code only if
 * the registry already covers the request and asks otherwise. No `next` or `return_to`: the only place a browser
 * is sent is the pending request's validated redirect URI.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 */
@Controller()
export class UpstreamCallbackController {
  readonly #logger = new Logger('UpstreamCallback');

  constructor(
    private readonly states: UpstreamStates,
    private readonly cookies: SignInCookies,
    private readonly pending: PendingAuthorizations,
    private readonly upstream: UpstreamClient,
    private readonly identities: UpstreamIdentities,
    private readonly tokens: UpstreamTokens,
    private readonly sessions: SessionService,
    private readonly interactions: InteractionService,
    private readonly consentCookies: ConsentCookies,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
  ) {}

  @Get('upstream/callback')
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const context: CallbackCheckContext = {
      params: RequestParameters.fromUrl(request.url),
      request,
      states: this.states,
      cookies: this.cookies,
      pendingAuthorizations: this.pending,
      upstream: this.upstream,
    };
    for (const check of CALLBACK_CHECKS) {
      try {
        await check.run(context);
      } catch (error) {
        if (context.state) this.cookies.clear(reply, context.state);
        return this.#refuse(reply, context, check.name, error);
      }
    }
    this.cookies.clear(reply, established(context, 'state'));
    await this.#complete(
      request,
      reply,
      established(context, 'signIn'),
      established(context, 'pending'),
      established(context, 'result'),
    );
  }

  async #complete(
    request: FastifyRequest,
    reply: FastifyReply,
    signIn: UpstreamSignInState,
    pending: ValidatedAuthorization,
    result: UpstreamSignIn,
  ): Promise<void> {
    const user = await this.identities.userFor(result.issuer, result.subject, result.displayName);
    await this.tokens.store(user.id, result);
    if (signIn.approvedScopes.length === 0)
      return this.interactions.completeLogin(signIn.interaction, user, reply);
    this.consentCookies.set(request, reply, {
      clientId: pending.clientId,
      resource: pending.resource,
      scopes: signIn.approvedScopes,
    });
    const session = await this.sessions.start(reply, user.id);
    this.#logger.log(`user ${user.username} signed in upstream and approved ${pending.clientId}`);
    return this.interactions.approve(reply, signIn.interaction, pending, session, signIn.approvedScopes);
  }

  async #refuse(
    reply: FastifyReply,
    context: CallbackCheckContext,
    check: string,
    error: unknown,
  ): Promise<void> {
    if (error instanceof CallbackRejection) {
      this.#logger.warn({ check, reason: error.reason }, 'upstream callback refused');
      return sendCallbackRejectedPage(reply, error.status, error.reason);
    }
    // Anything else is a fault of ours: the exception filter answers server_error and logs it.
    if (!(error instanceof UpstreamError)) throw error;
    this.#logger.warn(
      { check, failure: error.failure, err: error.cause ?? error },
      'upstream sign-in failed',
    );
    // The user said no upstream, and the response verified (iss, state): the client hears access_denied.
    if (error.failure === 'denied' && context.signIn && context.pending) {
      return this.interactions.deny(reply, context.signIn.interaction, context.pending);
    }
    const host = new URL(this.options.upstream.issuer).host;
    return sendUpstreamErrorPage(reply, error.failure, host, this.options.upstream.timeoutMs);
  }
}
