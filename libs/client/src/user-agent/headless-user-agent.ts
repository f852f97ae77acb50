/**
 * A user-agent without a user: it GETs the authorization URL without following redirects and reads the callback
 * from `Location`. For authorization servers that approve without interaction (the conformance suite's mock
 * servers, test fixtures).
 *
 * Rules kept here:
 * - The public MCP conformance suite (github.com/modelcontextprotocol/conformance) approves without a user, so
 *   the client GETs the authorization URL without following redirects and reads `code`, `state` and `iss` from
 *   the `Location` header. Same-origin hops inside the authorization server are followed (a server may redirect
 *   `/authorize` to an approval path first); the redirect URI itself is never fetched, and nothing is followed to
 *   another origin.
 * - Nothing here interprets the callback: the flow checks `state` and `iss` (MCP 2026-07-28 "Authorization
 *   Response Validation").
 */
import { PortcullisError } from '../errors/portcullis-error.js';
import { discardBody, withoutQuery, type FetchLike } from '../http/http.js';
import { isCallbackUrl, type UserAgent, type UserAgentSession } from './user-agent.js';

/**
 * Options of {@link HeadlessUserAgent}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2
 */
export interface HeadlessUserAgentOptions {
  /** The redirect URI to send and register; default `http://127.0.0.1/callback` (never fetched). */
  readonly redirectUri?: string;
  /** Same-origin redirects followed inside the authorization server before the callback; default 10. */
  readonly maxRedirects?: number;
  readonly fetch?: FetchLike;
}

/**
 * The headless {@link UserAgent}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 */
export class HeadlessUserAgent implements UserAgent {
  readonly redirectUris: readonly string[];
  readonly #redirectUri: string;
  readonly #maxRedirects: number;
  readonly #fetch: FetchLike;

  constructor(options: HeadlessUserAgentOptions = {}) {
    this.#redirectUri = options.redirectUri ?? 'http://127.0.0.1/callback';
    this.redirectUris = [this.#redirectUri];
    this.#maxRedirects = options.maxRedirects ?? 10;
    this.#fetch = options.fetch ?? fetch;
  }

  async begin(): Promise<UserAgentSession> {
    const redirectUri = this.#redirectUri;
    return {
      redirectUri,
      authorize: (authorizationUrl) => this.#follow(authorizationUrl, redirectUri),
      close: async () => undefined,
    };
  }

  async #follow(authorizationUrl: string, redirectUri: string): Promise<string> {
    const origin = new URL(authorizationUrl).origin;
    let url = authorizationUrl;
    for (let hop = 0; hop <= this.#maxRedirects; hop += 1) {
      let response: Response;
      try {
        response = await this.#fetch(url, { method: 'GET', redirect: 'manual' });
      } catch (cause) {
        throw new PortcullisError(
          'user_agent_failed',
          `Could not reach the authorization endpoint ${withoutQuery(url)}.`,
          { endpoint: withoutQuery(url) },
          { cause },
        );
      }
      await discardBody(response);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) {
        throw new PortcullisError(
          'user_agent_failed',
          `The authorization endpoint answered HTTP ${response.status} instead of redirecting to the client; ` +
            'it needs a person (log in or consent): use the browser instead of --headless.',
          { endpoint: withoutQuery(url), status: response.status },
        );
      }
      const next = new URL(location, url).href;
      if (isCallbackUrl(location, redirectUri)) return location;
      if (isCallbackUrl(next, redirectUri)) return next;
      if (new URL(next).origin !== origin) {
        throw new PortcullisError(
          'user_agent_failed',
          `The authorization endpoint redirected to ${new URL(next).origin}, which is neither the authorization server nor the redirect URI.`,
          { endpoint: withoutQuery(url), location: new URL(next).origin },
        );
      }
      url = next;
    }
    throw new PortcullisError(
      'user_agent_failed',
      `Too many redirects from the authorization endpoint (${this.#maxRedirects}).`,
      {
        endpoint: withoutQuery(authorizationUrl),
      },
    );
  }
}
