/*
 * Rules kept here, for every URL-valued field of every wire document:
 * - `javascript:`, `data:`, `vbscript:` and `file:` are refused, read the way a browser reads them (leading
 *   C0 controls and spaces ignored, tab/CR/LF ignored anywhere, scheme case-insensitive), so a value that
 *   becomes `javascript:` once displayed as a link cannot pass (CIMD draft, "SSRF Attacks": "ensure they only
 *   fetch or parse URLs with known and supported URI schemes ... such as `javascript:`"; RFC 6819 4.4.1.5).
 * - A URL is absolute (RFC 3986 4.3) and made only of RFC 3986 characters (section 2), so two parsers cannot
 *   disagree about it (no whitespace, no backslash, no raw non-ASCII).
 * - No userinfo (RFC 3986 3.2.1 deprecates it; `https://good.example@evil.example` misleads readers).
 * - http and https URLs have a host (RFC 9110 4.2.1).
 * - Optionally: only listed schemes; https unless the host is loopback (MCP "Communication Security", RFC 8252
 *   8.3); no fragment (RFC 6749 3.1, 3.1.2); no query (RFC 8414 2 for `issuer`).
 */
import { isLoopbackHost } from '@portcullis/protocol';
import { z } from 'zod';

/**
 * URL schemes no URL field accepts, whatever else its rules allow.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6819#section-4.4.1.5
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document
 */
export const REFUSED_URL_SCHEMES = Object.freeze(['javascript', 'data', 'vbscript', 'file'] as const);

/**
 * Why a value is not an acceptable URL, as a stable code (the `params.urlProblem` of the zod issue).
 *
 * @see https://www.rfc-editor.org/rfc/rfc3986
 */
export type UrlProblem =
  | 'refused_scheme'
  | 'invalid_characters'
  | 'not_absolute'
  | 'unparsable'
  | 'scheme_not_allowed'
  | 'missing_host'
  | 'userinfo'
  | 'insecure_http'
  | 'fragment'
  | 'query';

/**
 * What a URL field accepts beyond the rules every URL field keeps.
 *
 * @see https://www.rfc-editor.org/rfc/rfc3986#section-3
 */
export interface SafeUrlOptions {
  /** Accepted schemes, lowercase, without the colon. Omitted: any scheme but the refused ones. */
  readonly schemes?: readonly string[];
  /** Accept `http` only for a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`); otherwise `https`. */
  readonly httpsUnlessLoopback?: boolean;
  /** Accept a fragment (`#...`, even an empty one). Default: refused. */
  readonly fragment?: boolean;
  /** Accept a query (`?...`). Default: accepted. */
  readonly query?: boolean;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// RFC 3986 section 2: unreserved, reserved and percent-encoded octets; nothing else.
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const REFUSED = new Set<string>(REFUSED_URL_SCHEMES);

/** The value as the WHATWG URL parser sees it: C0 controls and spaces trimmed, tab/CR/LF removed anywhere. */
function asBrowserReadsIt(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start += 1;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end -= 1;
  let result = '';
  for (let i = start; i < end; i += 1) {
    const code = value.charCodeAt(i);
    if (code !== 0x09 && code !== 0x0a && code !== 0x0d) result += value[i];
  }
  return result;
}

/**
 * Whether the value, as a browser would read it, uses one of {@link REFUSED_URL_SCHEMES}: case-insensitive,
 * ignoring leading whitespace and control characters and tab/CR/LF anywhere (`" \tJava\nScript:alert(1)"`).
 *
 * @see https://url.spec.whatwg.org/#concept-basic-url-parser
 */
export function hasRefusedUrlScheme(value: string): boolean {
  const scheme = SCHEME.exec(asBrowserReadsIt(value))?.[1];
  return scheme !== undefined && REFUSED.has(scheme.toLowerCase());
}

/**
 * Whether a WHATWG `URL.hostname` names the loopback interface: the project's one loopback rule,
 * `isLoopbackHost` of the protocol lib (`localhost`, `127.0.0.0/8`, `[::1]`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-8.3
 */
export function isLoopbackHostname(hostname: string): boolean {
  return isLoopbackHost(hostname);
}

/** The raw authority (between `//` and the path), or undefined when the URL has none. */
function rawAuthority(value: string, scheme: string): string | undefined {
  const rest = value.slice(scheme.length + 1);
  if (!rest.startsWith('//')) return undefined;
  const end = rest.slice(2).search(/[/?#]/);
  return end === -1 ? rest.slice(2) : rest.slice(2, 2 + end);
}

/**
 * The first rule the value breaks, or `undefined` when it is an acceptable URL under these options. Checks run
 * on the raw string where the WHATWG parser would normalise the evidence away (fragments, userinfo, missing
 * `//`), and on the parsed URL for the host.
 *
 * @see https://www.rfc-editor.org/rfc/rfc3986#section-3
 */
export function findUrlProblem(value: string, options: SafeUrlOptions = {}): UrlProblem | undefined {
  if (hasRefusedUrlScheme(value)) return 'refused_scheme';
  if (!URI_CHARACTERS.test(value)) return 'invalid_characters';
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'not_absolute';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'unparsable';
  }
  if (options.schemes !== undefined && !options.schemes.includes(scheme)) return 'scheme_not_allowed';
  const authority = rawAuthority(value, scheme);
  const isWeb = scheme === 'http' || scheme === 'https';
  if (isWeb && (authority === undefined || authority === '' || url.hostname === '')) return 'missing_host';
  if (authority?.includes('@')) return 'userinfo';
  if (options.httpsUnlessLoopback === true && scheme !== 'https') {
    if (scheme !== 'http' || !isLoopbackHostname(url.hostname)) return 'insecure_http';
  }
  const hash = value.indexOf('#');
  if (options.fragment !== true && hash !== -1) return 'fragment';
  const query = value.indexOf('?');
  if (options.query === false && query !== -1 && (hash === -1 || query < hash)) return 'query';
  return undefined;
}

const MESSAGES: Record<UrlProblem, string> = {
  refused_scheme: `must not use the ${REFUSED_URL_SCHEMES.map((s) => `${s}:`).join(', ')} schemes`,
  invalid_characters:
    'must contain only RFC 3986 characters (no whitespace, controls, backslashes or raw non-ASCII)',
  not_absolute: 'must be an absolute URL',
  unparsable: 'is not a valid URL',
  scheme_not_allowed: 'uses a scheme that is not allowed here',
  missing_host: 'must have a host',
  userinfo: 'must not contain userinfo',
  insecure_http: 'must use https (http only for a loopback host)',
  fragment: 'must not contain a fragment',
  query: 'must not contain a query',
};

/**
 * A human-readable sentence for a {@link UrlProblem}, naming the allowed schemes when that is the problem.
 *
 * @see https://www.rfc-editor.org/rfc/rfc3986#section-3
 */
export function describeUrlProblem(problem: UrlProblem, options: SafeUrlOptions = {}): string {
  if (problem === 'scheme_not_allowed' && options.schemes !== undefined) {
    return `must use one of the schemes ${options.schemes.join(', ')}`;
  }
  return MESSAGES[problem];
}

/**
 * The one zod schema for URL fields: a string that {@link findUrlProblem} accepts under these options. A refused
 * value yields one issue whose `params.urlProblem` says why.
 *
 * @see https://www.rfc-editor.org/rfc/rfc3986#section-4.3
 */
export function safeUrl(options: SafeUrlOptions = {}): z.ZodString {
  return z.string().superRefine((value, ctx) => {
    const problem = findUrlProblem(value, options);
    if (problem !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `URL ${describeUrlProblem(problem, options)}`,
        params: { urlProblem: problem },
      });
    }
  });
}

/**
 * An endpoint or key-set URL: absolute, `https` (plain `http` only on loopback, for development), no fragment.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export const EndpointUrlSchema = safeUrl({ schemes: ['https', 'http'], httpsUnlessLoopback: true });

/**
 * An issuer identifier: an {@link EndpointUrlSchema} URL without query or fragment.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata
 */
export const IssuerUrlSchema = safeUrl({
  schemes: ['https', 'http'],
  httpsUnlessLoopback: true,
  query: false,
});

/**
 * A human-readable web page or image (documentation, policy, terms, logo): `http` or `https`, fragment allowed.
 * Plain `http` is allowed because these are shown, not trusted (RFC 8414's own example uses it).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.2
 */
export const WebPageUrlSchema = safeUrl({ schemes: ['https', 'http'], fragment: true });

/**
 * A redirection URI as registered by a client: absolute, no fragment, any scheme but the refused ones (native
 * apps use private-use schemes). Whether `http` is acceptable is the authorization server's policy.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.1
 */
export const RedirectUriSchema = safeUrl();
