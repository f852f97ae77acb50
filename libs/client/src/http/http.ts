/**
 * Small HTTP helpers shared by the metadata, registration and resource requests.
 *
 * Rules kept here:
 * - Metadata and registration responses are JSON objects (RFC 8414 Section 3.2, RFC 9728 Section 3.2, RFC 7591
 *   Section 3.2.1); a body that is not one is refused, and bodies are read with a size limit so a hostile server
 *   cannot make the client buffer without end.
 * - Discovery requests never follow redirects (RFC 9728 Section 3.1 and RFC 8414 Section 3.1 name one URL each;
 *   a redirect could move the document to another origin), so they are sent with `redirect: 'manual'` and a 3xx
 *   is treated like any other non-200 answer.
 */

/**
 * The fetch signature the SDK takes and returns (the platform's `fetch`).
 *
 * @see https://fetch.spec.whatwg.org/#fetch-method
 */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Largest metadata or registration body read (bytes); real documents are a few KiB. */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/**
 * Reads a response body as a JSON object, refusing bodies over `maxBytes` and anything but an object.
 * Returns `undefined` instead of throwing, so each caller maps the failure to its own error code.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259
 */
export async function readJsonObject(
  response: Response,
  maxBytes = MAX_JSON_BODY_BYTES,
): Promise<Record<string, unknown> | undefined> {
  const text = await readText(response, maxBytes);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads at most `maxBytes` of a body as UTF-8; `undefined` when it is longer or unreadable. */
export async function readText(response: Response, maxBytes: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Discards a body the caller does not need, so the connection can be reused. */
export async function discardBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // A body that is already gone needs no discarding.
  }
}

/**
 * GETs a JSON document without following redirects.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.1
 */
export function getJsonDocument(fetchFn: FetchLike, url: string): Promise<Response> {
  return fetchFn(url, { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual' });
}

/** The origin of an absolute URL (`scheme://host[:port]`, lowercase, default port elided), as WHATWG URL computes it. */
export function originOf(url: string | URL): string {
  return new URL(url).origin;
}

/** A URL without its query and fragment, for messages: authorization URLs carry `state` and PKCE values. */
export function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
