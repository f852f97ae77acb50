// Rules kept here: the one list of web origins whose pages may call this resource from a browser, read by both
// decisions that depend on it:
// - the Fetch standard's CORS protocol (https://fetch.spec.whatwg.org/#http-cors-protocol): only these origins are
//   granted `Access-Control-Allow-Origin`, so only their pages can read a response (a 401 challenge included);
// - MCP Streamable HTTP, "Security Warning" (DNS rebinding): a request whose `Origin` is present and not one of
//   these is refused with 403
//   (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
// An origin is compared as the browser serialises it (RFC 6454 Section 6.1: scheme, host and port, default port
// left out), byte for byte; the literal `null` of opaque origins is never allowed.
import { isLoopbackHost } from '@portcullis/protocol';

/**
 * Which browser origins may call the resource. Without any, only the resource's own origin passes the Origin check
 * and no CORS grant is ever made.
 *
 * @see {@link https://fetch.spec.whatwg.org/#http-cors-protocol Fetch, CORS protocol}
 */
export interface BrowserOriginsOptions {
  /** Origins as browsers send them: `https://app.example.com`, `http://localhost:6274`. No path, no trailing `/`. */
  readonly origins?: readonly string[];
  /** Also every `http` or `https` origin on a loopback host, at any port (development). Default `false`. */
  readonly loopback?: boolean;
}

/**
 * Why `value` is not a web origin as a browser serialises it, or `undefined` when it is one: an absolute `http` or
 * `https` URL with nothing after the authority, a lowercase host and no default port.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6454#section-6.1 RFC 6454 Section 6.1}
 */
export function webOriginProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an origin such as https://app.example.com';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https origin';
  if (url.origin !== value) {
    return `must be written as the browser sends it, ${url.origin} (scheme, host and port only, no path or trailing /)`;
  }
  return undefined;
}

/**
 * The allowed browser origins of one resource: its own, the listed ones and, when asked for, every loopback one.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning MCP Streamable HTTP, Security Warning}
 */
export class BrowserOrigins {
  readonly #own: string;
  readonly #listed: ReadonlySet<string>;
  readonly #loopback: boolean;

  /** @throws Error naming the first entry of `options.origins` that is not an origin. */
  constructor(resource: string, options: BrowserOriginsOptions = {}) {
    this.#own = new URL(resource).origin;
    for (const origin of options.origins ?? []) {
      const problem = typeof origin === 'string' ? webOriginProblem(origin) : 'must be a string';
      if (problem) throw new Error(`"${String(origin)}" ${problem}`);
    }
    this.#listed = new Set(options.origins ?? []);
    this.#loopback = options.loopback === true;
  }

  /** The listed origins (not the resource's own), for logs and tests. */
  get listed(): readonly string[] {
    return [...this.#listed];
  }

  /** Whether every loopback origin is allowed. */
  get loopback(): boolean {
    return this.#loopback;
  }

  /** Whether a cross-origin page may ever be granted anything: some origin listed, or loopback. */
  get grantsAny(): boolean {
    return this.#listed.size > 0 || this.#loopback;
  }

  /** Whether a request carrying `Origin: origin` comes from a page allowed to call the resource. */
  allows(origin: string): boolean {
    if (origin === this.#own || this.#listed.has(origin)) return true;
    if (!this.#loopback || webOriginProblem(origin) !== undefined) return false;
    return isLoopbackHost(new URL(origin).hostname);
  }
}
