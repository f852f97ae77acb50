/**
 * The one loopback rule of the project: what counts as "this computer" wherever plain `http` is allowed or a local
 * redirect is pointed out (issuer configuration, redirect URI registration and `application_type`, the consent
 * page's local-redirect note, the client's registration endpoint check). Redirect URI port freedom is a narrower
 * rule of its own (`redirectUriMatches`).
 */

const LOOPBACK_IPV4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/u;
/** The characters RFC 3986 lets a URI be written with (unreserved, reserved and `%`). */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/u;

/**
 * Whether `host` (a URL host name, as WHATWG `URL.hostname` gives it, or as written in an authority) names the local
 * machine: `localhost` in any case, an IPv4 address in `127.0.0.0/8` written as four decimal octets, or the IPv6
 * loopback `[::1]` (also `::1`, as socket APIs write it). Names under `.localhost` are not included: nothing
 * guarantees a resolver keeps them local.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8252#section-8.3 RFC 8252 Section 8.3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6761#section-6.3 RFC 6761 Section 6.3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc5735#section-3 RFC 5735 Section 3 (127.0.0.0/8)}
 */
export function isLoopbackHost(host: string): boolean {
  if (typeof host !== 'string') return false;
  const lower = host.toLowerCase();
  if (lower === 'localhost' || lower === '[::1]' || lower === '::1') return true;
  const octets = LOOPBACK_IPV4.exec(lower);
  return octets !== null && octets.slice(1).every((octet) => Number(octet) <= 255);
}

/**
 * Why `value` cannot be an issuer identifier this project is configured with (its own `ISSUER`, or an issuer a
 * protected server trusts), or `undefined` when it can: an absolute `https` URL (RFC 8414 Section 2), or `http` on a
 * loopback host for development; no query, fragment or userinfo; and no terminating `/`, because issuers are
 * compared byte for byte and the authorization server publishes its own without one. (A client reading someone
 * else's metadata is more lenient; see `sameIssuerIdentifier`.) With `terminatingSlash`, a terminating `/` is kept
 * as part of the identifier: for someone else's issuer that has one (Auth0's), which a client must then compare
 * with exactly that string.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8414#section-2 RFC 8414 Section 2}
 */
export function issuerIdentifierProblem(
  value: string,
  options: { readonly terminatingSlash?: boolean } = {},
): string | undefined {
  // Before the WHATWG parser, which would quietly drop tabs and newlines and read `\` as `/`.
  if (!URI_CHARACTERS.test(value)) return 'must be written with URI characters only (RFC 3986)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.search || url.hash || url.username || url.password || value.includes('#') || value.includes('?')) {
    return 'must not have a query, fragment or userinfo';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'must be https (http only on a loopback host)';
  }
  if (value.endsWith('/') && (!options.terminatingSlash || value.endsWith('//')))
    return 'must not end with /';
  return undefined;
}
