// Rules kept: RFC 9111 semantics for a fetched metadata document (a client ID metadata document or key set at the
// authorization server, as CIMD draft 4.4 allows: "respecting HTTP cache headers", within the server's own minimum
// and maximum; an authorization server's metadata at a client): `no-store` and `no-cache` ask for no reuse,
// `s-maxage` wins over `max-age` for a shared cache (5.2.2.10; a client is a private cache and ignores it), `max-age`
// (5.2.2.1) wins over `Expires` minus `Date` (4.2.1); `Age` counts against the lifetime (4.2.3); an invalid value
// means no explicit lifetime. The result is clamped to [min, max]: the minimum keeps a client from making a server
// fetch on every request, the maximum bounds how long a changed document goes unnoticed.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The server's own bounds on a document's cache lifetime, in seconds.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 */
export interface CacheBounds {
  readonly minCacheSeconds: number;
  readonly maxCacheSeconds: number;
  /** The lifetime when the response gives none (a heuristic, RFC 9111 4.2.2); default the minimum. */
  readonly defaultCacheSeconds?: number;
  /** Whether the cache is shared (a server: `s-maxage` applies) or private (a client); default shared. */
  readonly sharedCache?: boolean;
}

const DIRECTIVE = /^\s*([A-Za-z-]+)\s*(?:=\s*"?([^",]*)"?)?\s*$/;

/**
 * How long a fetched document may be reused, in seconds, from its response headers, within the cache's bounds.
 * `no-store` and `no-cache` mean the minimum; no explicit lifetime means the default (the minimum unless given).
 *
 * @example cacheLifetimeSeconds({ 'cache-control': 'max-age=600' }, { minCacheSeconds: 60, maxCacheSeconds: 86400 }) // 600
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-4.2.1
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 */
export function cacheLifetimeSeconds(headers: IncomingHttpHeaders, bounds: CacheBounds): number {
  const explicit = explicitLifetime(headers, bounds.sharedCache ?? true);
  const age = nonNegativeInteger(single(headers['age'])) ?? 0;
  const lifetime = explicit === undefined ? (bounds.defaultCacheSeconds ?? 0) : explicit - age;
  return Math.min(bounds.maxCacheSeconds, Math.max(bounds.minCacheSeconds, lifetime));
}

function explicitLifetime(headers: IncomingHttpHeaders, shared: boolean): number | undefined {
  const directives = new Map<string, string | undefined>();
  const cacheControl = headers['cache-control'];
  for (const part of (Array.isArray(cacheControl) ? cacheControl.join(',') : (cacheControl ?? '')).split(
    ',',
  )) {
    const match = DIRECTIVE.exec(part);
    if (match?.[1]) directives.set(match[1].toLowerCase(), match[2]);
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  if (shared && directives.has('s-maxage')) return nonNegativeInteger(directives.get('s-maxage')) ?? 0;
  if (directives.has('max-age')) return nonNegativeInteger(directives.get('max-age')) ?? 0;
  const expires = single(headers['expires']);
  if (expires === undefined) return undefined;
  const expiresAt = Date.parse(expires);
  if (Number.isNaN(expiresAt)) return 0;
  const date = Date.parse(single(headers['date']) ?? '');
  return Math.max(0, Math.floor((expiresAt - (Number.isNaN(date) ? Date.now() : date)) / 1000));
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function nonNegativeInteger(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
