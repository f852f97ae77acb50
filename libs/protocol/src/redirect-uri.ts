/**
 * Matching a requested `redirect_uri` against the registered ones.
 *
 * Rules kept here:
 * - OAuth 2.1 Section 2.3.1 / RFC 9700 Section 2.1 / MCP "Open Redirection": exact string comparison against the
 *   registered values; no normalisation of case, percent-encoding, trailing slashes or default ports; no wildcards.
 * - RFC 8252 Section 7.3 / OAuth 2.1 Section 8.4.2: for a registered loopback redirect URI (`http` with host
 *   `127.0.0.1`, `[::1]` or `localhost`) any port is accepted at request time; scheme, host, path and query still
 *   match exactly (`localhost` does not stand for `127.0.0.1`, nor the other way round). The registered URI may
 *   carry a port or not. RFC 8252 Section 8.3 prefers the IP literals, but shipping MCP clients register
 *   `http://localhost/callback` and listen on an ephemeral port, and the port is all that varies.
 * - A requested URI on the loopback path carrying userinfo, a fragment, whitespace, a backslash or a malformed port
 *   never matches, so no parser differential (WHATWG treats `\` as `/`) can turn it into another host.
 */
import { splitAuthority, splitUri } from './uri-parts.js';

const LOOPBACK_IP_LITERALS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]']);
/** The hosts, as written (no case folding), whose `http` redirect URIs have port freedom. */
const PORT_FREE_LOOPBACK_HOSTS: ReadonlySet<string> = new Set([...LOOPBACK_IP_LITERALS, 'localhost']);
// Printable ASCII without `\`: anything else never takes part in the loopback exception.
const PLAIN_URI = /^[\x21-\x5B\x5D-\x7E]*$/u;
const PORT = /^[0-9]{1,5}$/u;

/**
 * Whether `host` (as written in a URI authority) is a loopback IP literal in the sense of RFC 8252 Section 7.3:
 * exactly `127.0.0.1` or `[::1]`. `localhost` is not one.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8252#section-7.3 RFC 8252 Section 7.3}
 */
export function isLoopbackIpLiteral(host: string): boolean {
  return LOOPBACK_IP_LITERALS.has(host);
}

interface LoopbackRedirect {
  host: string;
  /** Everything after the authority: path, and `?` query if any. Compared byte for byte. */
  rest: string;
}

/** Splits a loopback redirect URI, or returns `undefined` when `uri` is not one in plain form. */
function parseLoopbackRedirect(uri: string): LoopbackRedirect | undefined {
  if (!PLAIN_URI.test(uri)) return undefined;
  const { scheme, authority, path, query, fragment } = splitUri(uri);
  if (scheme !== 'http' || authority === undefined || fragment !== undefined) return undefined;
  const parts = splitAuthority(authority);
  if (parts === undefined || parts.userinfo !== undefined || !PORT_FREE_LOOPBACK_HOSTS.has(parts.host))
    return undefined;
  if (parts.port !== undefined) {
    if (!PORT.test(parts.port)) return undefined;
    const port = Number(parts.port);
    if (port < 1 || port > 65535) return undefined;
  }
  return { host: parts.host, rest: query === undefined ? path : `${path}?${query}` };
}

/**
 * Whether `requested` may be used as the `redirect_uri` of a client that registered `registered`: an exact string
 * match with one registered value, or, for a registered `http://127.0.0.1`, `http://[::1]` or `http://localhost`
 * redirect URI, the same URI with any port (RFC 8252 Section 7.3, OAuth 2.1 Section 8.4.2).
 *
 * @example
 * ```ts
 * redirectUriMatches(['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb'); // true
 * redirectUriMatches(['http://localhost/cb'], 'http://localhost:5000/cb'); // true
 * redirectUriMatches(['http://localhost/cb'], 'http://127.0.0.1:5000/cb'); // false
 * redirectUriMatches(['https://app.example.com/cb'], 'https://app.example.com/cb/'); // false
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8252#section-7.3 RFC 8252 Section 7.3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9700#section-2.1 RFC 9700 Section 2.1}
 * @see {@link https://datatracker.ietf.org/doc/html/draft-ietf-oauth-v2-1-13#section-2.3.1 OAuth 2.1 Section 2.3.1}
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (typeof requested !== 'string') return false;
  if (registered.includes(requested)) return true;

  const request = parseLoopbackRedirect(requested);
  if (request === undefined) return false;
  return registered.some((candidate) => {
    const registration = typeof candidate === 'string' ? parseLoopbackRedirect(candidate) : undefined;
    return (
      registration !== undefined && registration.host === request.host && registration.rest === request.rest
    );
  });
}
