import type { UserAgent, UserAgentSession } from '@portcullis/client';
import { HeadlessUserAgent, type UserAgentResponse } from './headless-user-agent.js';

/** What the person at the browser does on the consent page. */
export interface ConsentChoice {
  /** Untick these scopes before approving (a user who grants less than asked). */
  readonly untick?: readonly string[];
  readonly decision?: 'approve' | 'deny';
}

/**
 * A user-agent for the client SDK that behaves like a person with a browser without JavaScript: it signs in on the
 * authorization server's login page, answers its consent page and clicks "Continue" on its confirmation, keeping cookies between authorizations (so a
 * second authorization finds the session). The callback is never requested: the redirect URI is a loopback one the
 * client would listen on.
 */
export class FormUserAgent implements UserAgent {
  readonly redirectUris = ['http://127.0.0.1/callback'];
  readonly browser = new HeadlessUserAgent();
  /**
   * How many times the login page, the consent page and the one-click confirmation (a public loopback client
   * re-authorized without any other click, RFC 8252 8.6) were shown.
   */
  readonly shown = { login: 0, consent: 0, confirm: 0 };

  constructor(
    private readonly user: { username: string; password: string },
    private readonly consent: () => ConsentChoice = () => ({}),
  ) {}

  async begin(): Promise<UserAgentSession> {
    const redirectUri = 'http://127.0.0.1:1/callback';
    return {
      redirectUri,
      authorize: (url) => this.authorize(url, redirectUri),
      close: async () => undefined,
    };
  }

  /**
   * Opens an authorization URL and answers each page (sign in, consent, confirm; on the proxy, its consent and the
   * upstream's pages too) until a redirect to `redirectUri`, whose URL it returns without requesting it: for a
   * client that listens on its redirect URI itself, the caller delivers it with {@link browser}.
   */
  async authorize(url: string, redirectUri: string): Promise<string> {
    let response = await this.browser.get(url);
    for (let step = 0; step < 12; step++) {
      if (response.location?.startsWith(redirectUri)) return response.location;
      if (response.location) {
        response = await this.browser.follow(response);
        continue;
      }
      response = await this.#answer(response);
    }
    throw new Error('the authorization did not come back to the client');
  }

  async #answer(page: UserAgentResponse): Promise<UserAgentResponse> {
    const form = page.form();
    if ('username' in form.fields) {
      this.shown.login += 1;
      return this.browser.submit(form, this.user);
    }
    if (form.action.endsWith('/continue')) {
      this.shown.confirm += 1;
      return this.browser.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
    }
    this.shown.consent += 1;
    const choice = this.consent();
    const ticked = (form.fields['scope'] ?? []).filter((scope) => !choice.untick?.includes(scope));
    const scopes = form.controls.some((control) => control.name === 'scope');
    return this.browser.submit(form, scopes ? { scope: ticked } : {}, {
      button: { name: 'decision', value: choice.decision ?? 'approve' },
    });
  }
}
