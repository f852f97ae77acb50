import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ValidatedAuthorization } from '@portcullis/authorization';
import type { FastifyReply } from 'fastify';
import * as oidc from 'openid-client';
import { seeOther } from '../http/cookies.js';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { SignInCookies } from './sign-in-cookie.js';
import { UpstreamClient } from './upstream-client.service.js';
import { sendUpstreamErrorPage } from './upstream-pages.js';
import { UpstreamStates } from './upstream-state.repository.js';
import { UpstreamError } from './upstream.error.js';

/** One consented (or cookie-approved) authorization, ready to go upstream. */
export interface ForwardRequest {
  /** The pending authorization's handle. */
  readonly handle: string;
  readonly pending: ValidatedAuthorization;
  /** What the user approved on the consent page just now; empty when the consent cookie skipped it. */
  readonly approvedScopes: readonly string[];
}

/**
 * Sends the browser upstream, only ever after consent: discovers the upstream first (so a slow or dead upstream
 * ends here, with a page and no state row), then stores the single-use `state` with the PKCE verifier and `nonce`,
 * binds it to this browser with a cookie, and answers 303 to the upstream's authorization endpoint.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1
 */
@Injectable()
export class UpstreamRedirect {
  readonly #logger = new Logger('UpstreamRedirect');

  constructor(
    private readonly upstream: UpstreamClient,
    private readonly states: UpstreamStates,
    private readonly cookies: SignInCookies,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
  ) {}

  async forward(reply: FastifyReply, request: ForwardRequest): Promise<void> {
    const state = UpstreamStates.newState();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = this.upstream.isOpenIdConnect ? oidc.randomNonce() : undefined;
    let url: URL;
    try {
      url = await this.upstream.authorizationUrl({
        state,
        codeVerifier,
        ...(nonce ? { nonce } : {}),
        ...(request.pending.prompt.includes('login') ? { prompt: 'login' } : {}),
      });
    } catch (error) {
      const failure = UpstreamError.from(error, 'discovery');
      this.#logger.warn(
        { err: failure.cause ?? failure, failure: failure.failure },
        'the upstream is not available',
      );
      return sendUpstreamErrorPage(
        reply,
        failure.failure,
        new URL(this.options.upstream.issuer).host,
        this.options.upstream.timeoutMs,
      );
    }
    const browserBinding = this.cookies.issue(reply, state);
    await this.states.create(state, {
      interaction: request.handle,
      clientId: request.pending.clientId,
      browserBinding,
      codeVerifier,
      ...(nonce ? { nonce } : {}),
      approvedScopes: request.approvedScopes,
    });
    seeOther(reply, url.href);
  }
}
