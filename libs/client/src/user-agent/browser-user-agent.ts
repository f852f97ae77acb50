/**
 * The system browser plus a loopback listener, for a person at a command line.
 *
 * Rules kept here:
 * - RFC 8252 Sections 7.3 and 8.3: the callback is received on `http://127.0.0.1:{port}/callback`, the port chosen
 *   by the operating system at request time; the listener binds the loopback interface only (never 0.0.0.0), and
 *   the registered redirect URI omits the port (the authorization server accepts any port for a loopback IP).
 * - RFC 8252 Section 8.12 / RFC 9700 Section 4.2.4: the callback page shows no authorization data, sets
 *   `Cache-Control: no-store` and `Referrer-Policy: no-referrer`, and the listener stops after the first callback.
 * - Only an http(s) URL is ever handed to the operating system to open.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PortcullisError } from '../errors/portcullis-error.js';
import { withoutQuery } from '../http/http.js';
import type { UserAgent, UserAgentSession } from './user-agent.js';

/**
 * Options of {@link BrowserUserAgent}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.3
 */
export interface BrowserUserAgentOptions {
  /** The callback path; default `/callback`. */
  readonly callbackPath?: string;
  /** How long to wait for the user; default 5 minutes. */
  readonly timeoutMs?: number;
  /** Opens a URL in the browser; default: the operating system's opener (`open`, `xdg-open`, `rundll32`). */
  readonly openBrowser?: (url: string) => Promise<void>;
  /** Told the URL before it is opened, so a command line can print it for a person to open by hand. */
  readonly onOpen?: (url: string) => void;
}

const CALLBACK_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Portcullis</title>' +
  '<p>The authorization response reached the Portcullis client. You can close this window.</p>';

/**
 * The system-browser {@link UserAgent}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252
 */
export class BrowserUserAgent implements UserAgent {
  readonly redirectUris: readonly string[];
  readonly #path: string;
  readonly #timeoutMs: number;
  readonly #open: (url: string) => Promise<void>;
  readonly #onOpen: ((url: string) => void) | undefined;

  constructor(options: BrowserUserAgentOptions = {}) {
    this.#path = options.callbackPath ?? '/callback';
    this.redirectUris = [`http://127.0.0.1${this.#path}`];
    this.#timeoutMs = options.timeoutMs ?? 5 * 60_000;
    this.#open = options.openBrowser ?? openSystemBrowser;
    this.#onOpen = options.onOpen;
  }

  async begin(): Promise<UserAgentSession> {
    let resolveCallback!: (url: string) => void;
    const callback = new Promise<string>((resolve) => {
      resolveCallback = resolve;
    });
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const target = request.url ?? '/';
      const path = target.split('?')[0];
      if (request.method !== 'GET' || path !== this.#path) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        return;
      }
      response
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        })
        .end(CALLBACK_PAGE);
      resolveCallback(`http://127.0.0.1:${port}${target}`);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return {
      redirectUri: `http://127.0.0.1:${port}${this.#path}`,
      close,
      authorize: async (authorizationUrl) => {
        const protocol = new URL(authorizationUrl).protocol;
        if (protocol !== 'https:' && protocol !== 'http:') {
          throw new PortcullisError(
            'user_agent_failed',
            'Refusing to open a non-http(s) authorization URL.',
            { protocol },
          );
        }
        this.#onOpen?.(authorizationUrl);
        try {
          await this.#open(authorizationUrl);
        } catch {
          // The URL was handed to onOpen; a person can still open it by hand while we wait.
        }
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new PortcullisError(
                  'user_agent_failed',
                  `No authorization response within ${Math.round(this.#timeoutMs / 1000)} s; run the command again.`,
                  { endpoint: withoutQuery(authorizationUrl) },
                ),
              ),
            this.#timeoutMs,
          );
        });
        try {
          return await Promise.race([callback, timeout]);
        } finally {
          clearTimeout(timer);
          await close();
        }
      },
    };
  }
}

/**
 * Opens an http(s) URL with the operating system's default browser, without a shell.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-4.1
 */
export function openSystemBrowser(url: string): Promise<void> {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
