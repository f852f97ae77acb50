/**
 * The canonical URI of a protected resource: the value of `resource` and of the access token audience.
 *
 * Rules kept here:
 * - RFC 8707 Section 2: a resource indicator is an absolute URI (RFC 3986 Section 4.3), MUST NOT include a
 *   fragment, and is refused with `invalid_target`. MCP "Canonical Server URI": absolute URI with scheme and host,
 *   optional port and path, no fragment.
 * - RFC 3986 Section 6.2.2.1 and MCP "Canonical Server URI": scheme and host are case-insensitive, the canonical
 *   form is lowercase.
 * - RFC 3986 Section 6.2.3: a default port (80 for http, 443 for https) and an empty port are dropped.
 * - MCP "Canonical Server URI": the form without a trailing slash; an empty or `/` path becomes no path. Any other
 *   path and the query are kept byte for byte: no percent-encoding changes, no dot-segment removal, no case change.
 * - RFC 3986 Sections 3.2.1 and 7.6: userinfo is refused (deprecated, and used to make a host look like another).
 * - Only `http` and `https` (the transports MCP authorization is defined for); no whitespace, control characters or
 *   other characters RFC 3986 does not allow in the component they appear in.
 *
 * The host must already be in the form a WHATWG URL parser keeps (except for case), so that the canonical URI names
 * the host a client will actually connect to: numeric IPv4 shorthands (`127.1`, `0x7f.0.0.1`), percent-encoded
 * hosts and hosts the parser refuses are refused. IPv6 literals are written in their RFC 5952 form (`[::1]`). An
 * all-ASCII `xn--` label that is not valid punycode follows the running Node's parser: Node 20 refuses it, Node 24
 * keeps it as written, as the WHATWG URL standard now does for ASCII hosts.
 */
import { OAuthError } from './oauth-error.js';
import { splitAuthority, splitUri } from './uri-parts.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/u;
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u;
const NOT_PRINTABLE_ASCII = /[^\x21-\x7E]/u;
// RFC 3986 Section 3.2.2: reg-name characters, minus pct-encoded and sub-delims (no DNS name or IPv4 has them).
const REG_NAME = /^[A-Za-z0-9\-._~]+$/u;
// RFC 3986 Section 3.3: path-abempty = *( "/" segment ), segment characters are pchar.
const PATH_ABEMPTY = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)*$/u;
// RFC 3986 Section 3.4: query = *( pchar / "/" / "?" ).
const QUERY = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/u;
const PORT = /^[0-9]+$/u;

function invalidTarget(reason: string): OAuthError {
  return new OAuthError('invalid_target', `resource ${reason}`);
}

/** The host as a WHATWG URL parser serialises it, or `undefined` when the parser refuses it. */
function whatwgHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

function canonicalHost(host: string): string {
  if (host === '') throw invalidTarget('must have a host');
  if (host.startsWith('[')) {
    const hostname = whatwgHostname(host);
    // Only an IPv6 address comes back bracketed: IPvFuture and zone identifiers are refused by the parser.
    if (hostname === undefined || !hostname.startsWith('[')) {
      throw invalidTarget('host is not a valid IPv6 literal');
    }
    return hostname;
  }
  const lowercase = host.toLowerCase();
  if (!REG_NAME.test(host) || whatwgHostname(host) !== lowercase) {
    throw invalidTarget('host must be a DNS name or a dotted-decimal IPv4 address');
  }
  return lowercase;
}

function canonicalPort(port: string | undefined, scheme: string): string {
  if (port === undefined || port === '') return '';
  if (!PORT.test(port)) throw invalidTarget('port must be decimal digits');
  const value = Number(port);
  if (value > 65535) throw invalidTarget('port must be at most 65535');
  return value === DEFAULT_PORTS[scheme] ? '' : `:${value}`;
}

/**
 * Returns the canonical form of a protected resource URI, or throws {@link OAuthError} `invalid_target`.
 *
 * Scheme and host are lowercased, a default or empty port is dropped, an empty or `/` path becomes no path; any
 * other path, and a query, are kept byte for byte. The function is idempotent.
 *
 * Refused (`invalid_target`): a relative URI, no host, a fragment (even an empty `#`), userinfo, a scheme other
 * than `http`/`https`, whitespace or control characters, and characters RFC 3986 does not allow where they appear.
 *
 * @example
 * ```ts
 * canonicalizeResourceUri('HTTPS://MCP.example.com:443/'); // 'https://mcp.example.com'
 * canonicalizeResourceUri('https://mcp.example.com/Public/MCP/'); // 'https://mcp.example.com/Public/MCP/'
 * canonicalizeResourceUri('https://mcp.example.com/#'); // throws OAuthError('invalid_target')
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8707#section-2 RFC 8707 Section 2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2 RFC 3986 Section 6.2.2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc3986#section-6.2.3 RFC 3986 Section 6.2.3}
 */
export function canonicalizeResourceUri(uri: string): string {
  if (typeof uri !== 'string') throw invalidTarget('must be a string');
  if (WHITESPACE_OR_CONTROL.test(uri))
    throw invalidTarget('must not contain whitespace or control characters');
  if (NOT_PRINTABLE_ASCII.test(uri))
    throw invalidTarget('must contain only ASCII characters (RFC 3986 Section 2)');
  if (uri.includes('#')) throw invalidTarget('must not contain a fragment');

  const { scheme, authority, path, query } = splitUri(uri);
  if (scheme === undefined || !SCHEME.test(scheme)) throw invalidTarget('must be an absolute URI');
  const lowerScheme = scheme.toLowerCase();
  if (!Object.hasOwn(DEFAULT_PORTS, lowerScheme)) throw invalidTarget('scheme must be http or https');
  if (authority === undefined || authority === '') throw invalidTarget('must have a host');

  const parts = splitAuthority(authority);
  if (parts === undefined) throw invalidTarget('has a malformed authority');
  if (parts.userinfo !== undefined) throw invalidTarget('must not contain userinfo');
  const host = canonicalHost(parts.host);
  const port = canonicalPort(parts.port, lowerScheme);

  if (!PATH_ABEMPTY.test(path)) throw invalidTarget('path contains characters RFC 3986 does not allow');
  if (query !== undefined && !QUERY.test(query)) {
    throw invalidTarget('query contains characters RFC 3986 does not allow');
  }

  const canonicalPath = path === '/' ? '' : path;
  return `${lowerScheme}://${host}${port}${canonicalPath}${query === undefined ? '' : `?${query}`}`;
}
