import { Injectable, Logger } from '@nestjs/common';
import type { CookieExchange, Decision, InteractionFlow } from '@portcullis/authorization';
import * as oidc from 'openid-client';
import { SignInCookies } from './sign-in-cookie.js';
import { UpstreamClient } from './upstream-client.service.js';
import { UpstreamStates } from './upstream-state.repository.js';
import { upstreamFailurePage, UpstreamError } from './upstream.error.js';

/** Where the browser goes: upstream, or a page saying the provider cannot be reached. */
export type BrowserAnswer = Extract<Decision, { readonly kind: 'page' | 'redirect' }>;

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
  ) {}

  async forward(flow: InteractionFlow): Promise<BrowserAnswer> {
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
  async forAccount(cookies: CookieExchange): Promise<BrowserAnswer> {
    return this.#go(cookies, false, async () => ({ purpose: 'account' }));
  }

  /**
   * Sends the browser to `connection`'s provider to connect it for the user `ticket` (a connect ticket, already
   * checked) names. The provider signs the person in afresh (its own session may be someone else's); the callback
   * accepts the sign-in only if it is that user's: by the upstream identity for the sign-in provider, by the proxy's
   * session in this browser for any other.
   */
  async forConnect(
    cookies: CookieExchange,
    ticket: string,
    connection: UpstreamClient,
  ): Promise<BrowserAnswer> {
    return this.#go(cookies, true, async () => ({ purpose: 'connect', ticket }), connection);
  }

  /**
   * Sends the browser upstream to sign in before it connects a connection other than the sign-in provider's for the
   * user `ticket` names: the callback starts a session only if the person is that user, and comes back to the
   * connect link.
   */
  async forConnectSignIn(cookies: CookieExchange, ticket: string): Promise<BrowserAnswer> {
    return this.#go(cookies, true, async () => ({ purpose: 'account', ticket }));
  }

  async #go(
    cookies: CookieExchange,
    again: boolean,
    purpose: () => Promise<
      | { purpose: 'authorization'; interaction: string; clientId: string }
      | { purpose: 'account'; ticket?: string }
      | { purpose: 'connect'; ticket: string }
    >,
    upstream = this.upstream,
  ): Promise<BrowserAnswer> {
    const state = UpstreamStates.newState();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = upstream.isOpenIdConnect ? oidc.randomNonce() : undefined;
    let url: URL;
    try {
      url = await upstream.authorizationUrl({
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
      return upstreamFailurePage(failure.failure, upstream.options);
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
