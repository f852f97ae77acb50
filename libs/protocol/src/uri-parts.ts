/**
 * Splitting a URI into its RFC 3986 components without normalising any of them.
 *
 * Rules kept here:
 * - The component split is the regular expression of RFC 3986 Appendix B, so every byte of the input lands in
 *   exactly one component and `scheme ":" "//" authority path "?" query "#" fragment` rebuilds it.
 * - The authority is split by RFC 3986 Section 3.2: `[ userinfo "@" ] host [ ":" port ]`, where the host is an
 *   IP-literal in brackets (Section 3.2.2) or a name without `:` or `@`.
 *
 * WHATWG URL is deliberately not used for the split: it percent-encodes, resolves dot segments, treats `\` as `/`
 * for http(s) and rewrites hosts, and the rules built on this module compare bytes.
 *
 * Internal to the package: not exported from the index.
 */

/** The five RFC 3986 components; `undefined` where the delimiter is absent, `''` where it is present but empty. */
export interface UriComponents {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

/** An authority split into its parts; `port` is `''` for a present but empty port (`host:`). */
export interface AuthorityParts {
  userinfo: string | undefined;
  host: string;
  port: string | undefined;
}

// RFC 3986 Appendix B, with `s` so that a line break cannot end a component early.
const URI_COMPONENTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/su;

/** Splits `uri` into its components (RFC 3986 Appendix B). Never throws; every string splits. */
export function splitUri(uri: string): UriComponents {
  const match = URI_COMPONENTS.exec(uri);
  // The pattern matches every string: each group is optional and the path group accepts the empty string.
  const [, scheme, authority, path = '', query, fragment] = match ?? [];
  return { scheme, authority, path, query, fragment };
}

/**
 * Splits an authority into userinfo, host and port (RFC 3986 Section 3.2). Returns `undefined` when the host part
 * is not one: an unclosed `[`, or something other than `:port` after the host.
 */
export function splitAuthority(authority: string): AuthorityParts | undefined {
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? undefined : authority.slice(0, at);
  const hostAndPort = at === -1 ? authority : authority.slice(at + 1);

  let host: string;
  let rest: string;
  if (hostAndPort.startsWith('[')) {
    const close = hostAndPort.indexOf(']');
    if (close === -1) return undefined;
    host = hostAndPort.slice(0, close + 1);
    rest = hostAndPort.slice(close + 1);
  } else {
    const colon = hostAndPort.indexOf(':');
    host = colon === -1 ? hostAndPort : hostAndPort.slice(0, colon);
    rest = colon === -1 ? '' : hostAndPort.slice(colon);
  }
  if (rest !== '' && !rest.startsWith(':')) return undefined;
  return { userinfo, host, port: rest === '' ? undefined : rest.slice(1) };
}
