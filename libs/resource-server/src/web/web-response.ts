/** Writing the core's answers as web-standard `Response`s. */
import type { RefusalResponse } from '../errors/refusal.js';

/** A `Response` with `status`, `headers` and, when given, a JSON `body`. */
export function jsonResponse(
  status: number,
  headers: Readonly<Record<string, string>>,
  body?: unknown,
): Response {
  if (body === undefined) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

/** The `Response` of a refused request. */
export function refusalToResponse(refusal: RefusalResponse): Response {
  return jsonResponse(refusal.status, refusal.headers, refusal.body);
}

/**
 * `response` with `headers` added (`Vary` appended to the handler's own). A handler's response may have immutable
 * headers (one `fetch` returned); it is then copied.
 */
export function withHeaders(
  response: Response,
  headers: Readonly<Record<string, string>> | undefined,
): Response {
  if (headers === undefined || Object.keys(headers).length === 0) return response;
  const apply = (target: Headers) => {
    for (const [name, value] of Object.entries(headers)) {
      if (name === 'vary') target.append(name, value);
      else target.set(name, value);
    }
  };
  try {
    apply(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    apply(copy.headers);
    return copy;
  }
}
