/**
 * The request as a proof-of-possession extension sees it.
 *
 * Rules kept here:
 * - RFC 9449 Section 4.3 item 9 and Section 7.1: the proof's `htu` is compared with the URI the client addressed.
 *   That is this resource's configured public origin (the origin of its canonical resource URI) with the path and
 *   query the request carried, never the `Host` header or the socket's address: a client cannot choose the URI its
 *   proof is checked against, and a proof made for another host never matches.
 * - RFC 9449 Section 4.3 item 1: every field line of a header is seen, in order (Node would join repeated
 *   unknown fields into one value), so "exactly one `DPoP` header" can be checked.
 */
import type { HttpRequestView } from '@portcullis/extensions';
import type { BearerRequest } from './bearer-request.js';

/** The path and query of a request target, whatever its form (origin-form, or absolute-form through a proxy). */
function pathAndQuery(target: string | undefined): string {
  if (target === undefined || target === '') return '/';
  // origin-form (RFC 9112 Section 3.2.1): appended as it is, so `//host/x` stays a path on this origin.
  if (target.startsWith('/')) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return '/';
  }
}

/**
 * The view of `request` addressed at `origin` (`https://mcp.example.com`).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9449#section-4.3 RFC 9449 Section 4.3}
 */
export function httpRequestView(request: BearerRequest, origin: string): HttpRequestView {
  const raw = request.raw?.rawHeaders;
  return {
    method: (request.method ?? 'GET').toUpperCase(),
    url: `${origin}${pathAndQuery(request.url)}`,
    headerValues(name) {
      const wanted = name.toLowerCase();
      if (!raw) {
        const value = request.headers[wanted];
        return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
      }
      const values: string[] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) {
        if (raw[i]?.toLowerCase() === wanted) values.push(raw[i + 1] as string);
      }
      return values;
    },
  };
}
