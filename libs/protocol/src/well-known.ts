/**
 * Where a client looks for metadata: the well-known URLs of a protected resource and of an authorization server.
 *
 * Rules kept here:
 * - RFC 9728 Section 3.1: the Protected Resource Metadata URL inserts `/.well-known/oauth-protected-resource`
 *   between the host and the path and/or query of the resource identifier. MCP 2026-07-28 "Protected Resource
 *   Metadata Discovery Requirements": without `resource_metadata` in the challenge the client tries the
 *   path-inserted URL, then the root one.
 * - RFC 8414 Section 3.1: the authorization server metadata URL inserts `/.well-known/oauth-authorization-server`
 *   between the host and the path of the issuer, after removing a terminating `/`.
 * - OpenID Connect Discovery 1.0 Section 4 and MCP 2026-07-28 "Authorization Server Metadata Discovery": with
 *   OIDC, the order for an issuer with a path is RFC 8414 path-inserted, OIDC path-inserted, OIDC path-appended;
 *   without a path, RFC 8414 then OIDC.
 * - MCP 2026-07-28 "Authorization Server Metadata Discovery" (RFC 8414 Section 3.3): the metadata `issuer` must
 *   equal the issuer these URLs were built from byte for byte, so the issuer is not normalised here: scheme,
 *   host, port and path are copied as given.
 */
import { canonicalizeResourceUri } from './resource-uri.js';
import { splitAuthority, splitUri } from './uri-parts.js';

/**
 * The well-known path suffixes (RFC 8615) a server serves its metadata under.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3 RFC 9728 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc8414#section-3 RFC 8414 Section 3}
 * @see {@link https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfig OpenID Connect Discovery 1.0 Section 4}
 */
export const WELL_KNOWN_PATHS = Object.freeze({
  protectedResource: '/.well-known/oauth-protected-resource',
  authorizationServer: '/.well-known/oauth-authorization-server',
  openIdConfiguration: '/.well-known/openid-configuration',
} as const);

/**
 * The URLs to try for a resource's Protected Resource Metadata, in order: the path-inserted one, then the root one;
 * only the root one when the resource has neither path nor query.
 *
 * The resource is canonicalised first ({@link canonicalizeResourceUri}), so an invalid resource throws
 * `OAuthError('invalid_target')` and `https://mcp.example.com/` has no path. A query stays on the path-inserted
 * URL, as RFC 9728 Section 3.1 inserts the well-known string before "the path and/or query components".
 *
 * @example
 * ```ts
 * protectedResourceMetadataUrls('https://mcp.example.com/public/mcp');
 * // ['https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
 * //  'https://mcp.example.com/.well-known/oauth-protected-resource']
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3.1 RFC 9728 Section 3.1}
 */
export function protectedResourceMetadataUrls(resource: string): string[] {
  const canonical = canonicalizeResourceUri(resource);
  const { scheme, authority, path, query } = splitUri(canonical);
  const root = `${scheme}://${authority}${WELL_KNOWN_PATHS.protectedResource}`;
  if (path === '' && query === undefined) return [root];
  return [`${root}${path}${query === undefined ? '' : `?${query}`}`, root];
}

/**
 * Options of {@link authorizationServerMetadataUrls}.
 *
 * @see {@link https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationRequest OpenID Connect Discovery 1.0 Section 4.1}
 */
export interface AuthorizationServerMetadataUrlOptions {
  /**
   * Whether to include the OpenID Connect Discovery URLs (default `true`). Pass `false` where only RFC 8414 is
   * used, as under revision 2025-06-18.
   */
  openIdConnect?: boolean;
}

const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/**
 * The URLs to try for an authorization server's metadata, in the order of MCP 2026-07-28 "Authorization Server
 * Metadata Discovery".
 *
 * Issuer `https://auth.example.com/tenant1`:
 * 1. `https://auth.example.com/.well-known/oauth-authorization-server/tenant1`
 * 2. `https://auth.example.com/.well-known/openid-configuration/tenant1`
 * 3. `https://auth.example.com/tenant1/.well-known/openid-configuration`
 *
 * Issuer `https://auth.example.com`: `/.well-known/oauth-authorization-server`, then
 * `/.well-known/openid-configuration`. With `openIdConnect: false` only the RFC 8414 URL is returned.
 *
 * The issuer is not normalised (the metadata `issuer` must match it byte for byte); only one terminating `/` is
 * removed, as RFC 8414 Section 3.1 says. Throws `TypeError` for an issuer that cannot be one (RFC 8414 Section 2):
 * not an absolute `http`/`https` URL with a host, or carrying userinfo, a query, a fragment or whitespace.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8414#section-3.1 RFC 8414 Section 3.1}
 * @see {@link https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationRequest OpenID Connect Discovery 1.0 Section 4.1}
 */
export function authorizationServerMetadataUrls(
  issuer: string,
  options: AuthorizationServerMetadataUrlOptions = {},
): string[] {
  const { openIdConnect = true } = options;
  if (typeof issuer !== 'string' || WHITESPACE_OR_CONTROL.test(issuer)) {
    throw new TypeError('issuer must be a URL without whitespace or control characters');
  }
  const { scheme, authority, path, query, fragment } = splitUri(issuer);
  const lowerScheme = scheme?.toLowerCase();
  if (lowerScheme !== 'https' && lowerScheme !== 'http') throw new TypeError('issuer must be an http(s) URL');
  const parts = authority === undefined ? undefined : splitAuthority(authority);
  if (parts === undefined || parts.host === '') throw new TypeError('issuer must have a host');
  if (parts.userinfo !== undefined) throw new TypeError('issuer must not contain userinfo');
  if (query !== undefined || fragment !== undefined) {
    throw new TypeError('issuer must not contain a query or a fragment (RFC 8414 Section 2)');
  }

  const origin = `${scheme}://${authority}`;
  const issuerPath = path.endsWith('/') ? path.slice(0, -1) : path;
  const urls = [`${origin}${WELL_KNOWN_PATHS.authorizationServer}${issuerPath}`];
  if (openIdConnect) {
    urls.push(`${origin}${WELL_KNOWN_PATHS.openIdConfiguration}${issuerPath}`);
    if (issuerPath !== '') urls.push(`${origin}${issuerPath}${WELL_KNOWN_PATHS.openIdConfiguration}`);
  }
  return urls;
}

/**
 * Whether `named` (the issuer identifier a protected resource's metadata lists in `authorization_servers`) and
 * `published` (the `issuer` of the metadata document fetched for it) identify the same authorization server: equal
 * byte for byte, or one a root issuer and the other the same with a `/` path. For `http` and `https` an empty path and
 * `/` are the same URI (RFC 3986 Section 6.2.3), and both give the same well-known URL (RFC 8414 Section 3.1). No
 * other equivalence is accepted: no case folding, no default-port elision, no percent-decoding, and a non-empty path
 * with and without a terminating `/` stay different issuers. From there on the published `issuer` is used byte for
 * byte (the RFC 9207 `iss` check stays exact).
 *
 * @example
 * ```ts
 * sameIssuerIdentifier('https://as.example/', 'https://as.example'); // true
 * sameIssuerIdentifier('https://as.example/t1/', 'https://as.example/t1'); // false
 * sameIssuerIdentifier('https://AS.example', 'https://as.example'); // false
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc3986#section-6.2.3 RFC 3986 Section 6.2.3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc8414#section-3.3 RFC 8414 Section 3.3}
 */
export function sameIssuerIdentifier(named: string, published: string): boolean {
  if (named === published) return true;
  const [root, withSlash] = named.length < published.length ? [named, published] : [published, named];
  if (withSlash !== `${root}/`) return false;
  const { scheme, authority, path, query, fragment } = splitUri(root);
  return (
    (scheme === 'https' || scheme === 'http') &&
    authority !== undefined &&
    authority !== '' &&
    path === '' &&
    query === undefined &&
    fragment === undefined
  );
}
