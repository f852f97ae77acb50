/*
 * Client Identifier URL, draft-ietf-oauth-client-id-metadata-document-00 section 3 and MCP 2026-07-28 "Client ID
 * Metadata Documents", "Implementation Requirements":
 * - MUST use the `https` scheme and have a host;
 * - MUST contain a path component, here one other than `/` (MCP: "MUST use the https scheme and contain a path
 *   component"; the later draft calls a `/` path NOT RECOMMENDED because the document would squat the site's root);
 * - MUST NOT contain single-dot or double-dot path segments, percent-encoded ones (`%2e`, `.%2E`) included;
 * - MUST NOT contain a fragment, not even an empty `#`;
 * - MUST NOT contain a username or password (any `@` in the authority);
 * - MAY contain a port.
 * A query is accepted: the draft says SHOULD NOT, not MUST NOT, and refusing would lock out clients the draft
 * allows. The authorization server still compares the whole string, query included (simple string comparison).
 * Every check reads the raw string: the WHATWG URL parser resolves dot segments, drops an empty fragment and
 * accepts `https:example.com/x`, so the parsed URL no longer shows what the client sent.
 */
import { findUrlProblem, describeUrlProblem, isLoopbackHostname } from '../schemas/safe-url.schema.js';

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
const HTTPS_ONLY = { schemes: ['https'] } as const;

/**
 * Why a string is not a Client Identifier URL, or `undefined` when it is one.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-3
 */
export function clientIdMetadataUrlProblem(url: string): string | undefined {
  if (typeof url !== 'string') return 'is not a string';
  // Refused schemes, RFC 3986 characters, absolute form, https, host, userinfo, fragment.
  const problem = findUrlProblem(url, HTTPS_ONLY);
  if (problem !== undefined) return describeUrlProblem(problem, HTTPS_ONLY);
  const afterScheme = url.slice('https://'.length);
  const pathStart = afterScheme.search(/[/?]/);
  const pathAndQuery = pathStart === -1 ? '' : afterScheme.slice(pathStart);
  const queryStart = pathAndQuery.indexOf('?');
  const path = queryStart === -1 ? pathAndQuery : pathAndQuery.slice(0, queryStart);
  if (path === '' || path === '/') return 'must have a path other than "/"';
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    return 'must not contain "." or ".." path segments (percent-encoded or not)';
  }
  return undefined;
}

/**
 * Whether a string may serve as a `client_id` that names a Client ID Metadata Document: https, a host, a path
 * other than `/`, no `.`/`..` segments (also percent-encoded), no fragment (even an empty `#`), no userinfo.
 * A query is allowed (the draft's SHOULD NOT is advice to clients, not a reason to refuse one).
 *
 * @example isClientIdMetadataUrl('https://app.example.com/oauth/client-metadata.json') // true
 * @example isClientIdMetadataUrl('https://app.example.com/a/../client.json') // false
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-3
 */
export function isClientIdMetadataUrl(url: string): boolean {
  return clientIdMetadataUrlProblem(url) === undefined;
}

/**
 * Whether `url` is the development form of a Client Identifier URL: plain `http` on a loopback host (`localhost`,
 * 127.0.0.0/8, `[::1]`), otherwise exactly what {@link isClientIdMetadataUrl} accepts over https. Only an
 * authorization server that itself runs on loopback may be configured to fetch one (the later CIMD draft, "Server
 * Side Request Forgery (SSRF) Attacks"), so a client may offer one for local development without exposing anything.
 *
 * @example isLoopbackClientIdMetadataUrl('http://127.0.0.1:8080/client.json') // true
 * @example isLoopbackClientIdMetadataUrl('http://app.example.com/client.json') // false
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-3
 */
export function isLoopbackClientIdMetadataUrl(url: string): boolean {
  if (typeof url !== 'string' || !url.startsWith('http://')) return false;
  const asHttps = `https://${url.slice('http://'.length)}`;
  return isClientIdMetadataUrl(asHttps) && isLoopbackHostname(new URL(asHttps).hostname);
}
