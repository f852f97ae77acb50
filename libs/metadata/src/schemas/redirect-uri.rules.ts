/*
 * Rules kept here, for the redirect URIs an authorization server accepts from a client (registration, client ID
 * metadata documents):
 * - MCP "Communication Security": https, or http on a loopback host (RFC 8252 7.3, 8.3);
 * - RFC 8252 7.1: a private-use URI scheme, only one the operator allows (the MCP specification names localhost and
 *   https only, so no scheme is allowed unless configured), written as a hierarchical URI (`scheme:/path` or
 *   `scheme://authority/path`);
 * - every rule of `findUrlProblem`: no `javascript:`, `data:`, `vbscript:`, `file:`, RFC 3986 characters only, no
 *   userinfo, no fragment (RFC 6749 3.1.2).
 * And for the schemes an operator may allow: RFC 3986 3.1 syntax, and none a browser handles itself (those are not
 * private-use: the browser would act on the URI instead of handing it to an application).
 */
import {
  describeUrlProblem,
  findUrlProblem,
  isLoopbackHostname,
  REFUSED_URL_SCHEMES,
  type UrlProblem,
} from './safe-url.schema.js';

/** The kind of an accepted redirect URI: a web one, a loopback one, or one handed to an application. */
export type RedirectUriKind = 'https' | 'loopback' | 'private-use';

/**
 * Why a redirect URI is refused: a {@link UrlProblem}, or `no_path` for a private-use URI that names no path
 * (`com.example.app:callback`).
 */
export type RedirectUriProblem = UrlProblem | 'no_path';

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const SCHEME_SYNTAX = /^[a-z][a-z0-9+.-]*$/;
const WEB = { schemes: ['https', 'http'], httpsUnlessLoopback: true } as const;

/**
 * Schemes the browser acts on itself: never private-use, whatever the configuration says.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.1
 * @see https://url.spec.whatwg.org/#special-scheme
 */
export const BROWSER_SCHEMES: readonly string[] = Object.freeze([
  ...REFUSED_URL_SCHEMES,
  'http',
  'https',
  'ws',
  'wss',
  'ftp',
  'about',
  'blob',
  'filesystem',
]);

/** The scheme of `uri`, lowercase, or `undefined` when it has none. */
export function uriScheme(uri: string): string | undefined {
  return SCHEME.exec(uri)?.[1]?.toLowerCase();
}

/**
 * Why `scheme` cannot be allowed as a private-use redirect scheme, or `undefined` when it can: RFC 3986 3.1 syntax
 * in lowercase, and not one of {@link BROWSER_SCHEMES}. RFC 8252 8.4 also says a scheme without a period (not a
 * reverse domain name, 7.1) SHOULD be refused: see {@link isReverseDomainScheme}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc3986#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.1
 */
export function privateUseSchemeProblem(scheme: string): string | undefined {
  if (!SCHEME_SYNTAX.test(scheme)) {
    return `${JSON.stringify(scheme)} is not a URI scheme (RFC 3986 3.1: a lowercase letter, then letters, digits, +, - or .)`;
  }
  if (BROWSER_SCHEMES.includes(scheme)) {
    return `${scheme} is not a private-use scheme: the browser handles ${scheme}: URIs itself`;
  }
  return undefined;
}

/**
 * Whether `scheme` is a reverse domain name (`com.example.app`), as RFC 8252 7.1 asks of private-use schemes; 8.4:
 * one without a period SHOULD be refused, since any application could claim it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-8.4
 */
export function isReverseDomainScheme(scheme: string): boolean {
  return scheme.includes('.');
}

/**
 * What kind of redirect URI `uri` is, under the private-use schemes the operator allows; `undefined` for one that
 * {@link findRedirectUriProblem} refuses.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7
 */
export function redirectUriKind(
  uri: string,
  privateUseSchemes: readonly string[] = [],
): RedirectUriKind | undefined {
  if (findRedirectUriProblem(uri, privateUseSchemes) !== undefined) return undefined;
  const scheme = uriScheme(uri);
  if (scheme === 'https') return 'https';
  if (scheme === 'http' && isLoopbackHostname(new URL(uri).hostname)) return 'loopback';
  return 'private-use';
}

/**
 * The first rule `uri` breaks as a redirect URI, or `undefined` when it is acceptable: https, http on a loopback
 * host, or a hierarchical URI of one of `privateUseSchemes` (lowercase); never with a fragment, userinfo or a
 * refused scheme. Wildcards and duplicates are the caller's rules.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.1
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#communication-security
 */
export function findRedirectUriProblem(
  uri: string,
  privateUseSchemes: readonly string[] = [],
): RedirectUriProblem | undefined {
  const scheme = uriScheme(uri);
  if (scheme === undefined || !privateUseSchemes.includes(scheme) || BROWSER_SCHEMES.includes(scheme)) {
    return findUrlProblem(uri, WEB);
  }
  const problem = findUrlProblem(uri, { schemes: [scheme] });
  if (problem !== undefined) return problem;
  // RFC 8252 7.1's form: `com.example.app:/oauth2redirect/example-provider`, or with an authority.
  return uri.slice(scheme.length + 1).startsWith('/') ? undefined : 'no_path';
}

/**
 * A sentence for a {@link RedirectUriProblem}, naming the schemes accepted when the scheme is the problem.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7
 */
export function describeRedirectUriProblem(
  problem: RedirectUriProblem,
  privateUseSchemes: readonly string[] = [],
): string {
  if (problem === 'no_path') return 'must name a path after its private-use scheme (scheme:/path)';
  return describeUrlProblem(problem, { ...WEB, schemes: [...WEB.schemes, ...privateUseSchemes] });
}
