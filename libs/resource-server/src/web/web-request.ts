/**
 * A web-standard `Request` as the bearer rules read it (`BearerRequest`).
 *
 * Rules kept here:
 * - RFC 9700 Section 4.3.2, RFC 6750 Section 2.3: the query string is read for `access_token`, which is refused.
 * - RFC 6750 Section 2.2: a form-encoded body is read (from a clone, so the handler still reads the request) for
 *   `access_token`, which is refused; no other body is parsed here.
 * - RFC 9110 Section 5.3: the Fetch `Headers` of a request join repeated fields into one value with `, `; a joined
 *   `Authorization` or `DPoP` value is malformed for the checks, so two fields are refused (`invalid_request`,
 *   `invalid_dpop_proof`), never read as one.
 */
import type { BearerRequest } from '../auth/bearer-request.js';

const FORM = 'application/x-www-form-urlencoded';

async function formBody(request: Request): Promise<Record<string, string> | undefined> {
  const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== FORM || request.body === null) return undefined;
  try {
    return Object.fromEntries(new URLSearchParams(await request.clone().text()));
  } catch {
    // A body already read, or one that cannot be: the handler answers it as it would without us.
    return undefined;
  }
}

/**
 * The view of `request` the bearer rules read: method, path and query, header fields, the query parameters and a
 * form body's parameters.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2 RFC 6750 Section 2}
 */
export async function bearerRequestOf(request: Request): Promise<BearerRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const body = await formBody(request);
  return {
    method: request.method,
    url: `${url.pathname}${url.search}`,
    headers,
    query: Object.fromEntries(url.searchParams),
    ...(body ? { body } : {}),
  };
}
