import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CookieExchange, Decision, InteractionFlow } from '@portcullis/authorization';
import * as oidc from 'openid-client';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { SignInCookies } from './sign-in-cookie.js';
import { UpstreamClient } from './upstream-client.service.js';
import { UpstreamStates } from './upstream-state.repository.js';
import { upstreamFailurePage, UpstreamError } from './upstream.error.js';

/**
 * Sends the browser upstream, only ever after consent: discovers the upstream first (so a slow or dead upstream
 * ends here, with a page and nothing stored), then stores the pending authorization and the single-use `state` with the PKCE verifier and `nonce`,
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

  async forward(flow: InteractionFlow): Promise<Decision> {
    // `prompt=login` and `select_account` both mean "not the session you have": the upstream signs in again, where
    // the person can also pick another account (OIDC Core 3.1.2.1).
    const again = flow.request.prompt.some((value) => value === 'login' || value === 'select_account');
    return this.#go(flow.cookies, again, async () => ({
      purpose: 'authorization',
      interaction: await flow.persist(),
      clientId: flow.request.clientId,
    }));
  }

  /**
   * Sends the browser upstream to sign in to the connected apps page: the callback starts a session and comes back
   * to `/account`, and no authorization is answered. As for an authorization, the upstream decides whether its own
   * session is enough.
   */
  async forAccount(cookies: CookieExchange): Promise<Decision> {
    return this.#go(cookies, false, async () => ({ purpose: 'account' }));
  }

  /**
   * Sends the browser upstream to connect a connection again for the user `ticket` (a connect ticket, already
   * checked) names. The upstream signs the person in afresh (its own session may be someone else's), and the
   * callback accepts the sign-in only if it is that user's.
   */
  async forConnect(cookies: CookieExchange, ticket: string): Promise<Decision> {
    return this.#go(cookies, true, async () => ({ purpose: 'connect', ticket }));
  }

  async #go(
    cookies: CookieExchange,
    again: boolean,
    purpose: () => Promise<
      | { purpose: 'authorization'; interaction: string; clientId: string }
      | { purpose: 'account' }
      | { purpose: 'connect'; ticket: string }
    >,
  ): Promise<Decision> {
    const state = UpstreamStates.newState();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = this.upstream.isOpenIdConnect ? oidc.randomNonce() : undefined;
    let url: URL;
    try {
      url = await this.upstream.authorizationUrl({
        state,
        codeVerifier,
        ...(nonce ? { nonce } : {}),
        ...(again ? { prompt: 'login' } : {}),
      });
    } catch (error) {
      const failure = UpstreamError.from(error, 'discovery');
      this.#logger.warn(
        { err: failure.cause ?? failure, failure: failure.failure },
        'the upstream is not available',
      );
      return upstreamFailurePage(failure.failure, this.options.upstream);
    }
    const record = await purpose();
    const browserBinding = this.cookies.issue(cookies, state);
    await this.states.create(state, {
      ...record,
      browserBinding,
      codeVerifier,
      ...(nonce ? { nonce } : {}),
    });
    return { kind: 'redirect', location: url.href };
  }
}
