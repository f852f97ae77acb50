/**
 * One bounded GET of a JSON document from an authorization server: a timeout, a size limit, no redirects (a
 * metadata or key document is served by its own host, RFC 8414 Section 3; following a redirect would let another
 * host answer for the issuer).
 */

/**
 * The outcome of {@link fetchJson}: a JSON body and the response headers on 200, otherwise just the status (and, with
 * `errorBodies`, the JSON body of a 4xx, or `undefined` when it has none).
 */
export type FetchJsonResult =
  | { readonly status: 200; readonly body: unknown; readonly headers: Headers }
  | { readonly status: number; readonly errorBody?: unknown };

/** Why a document could not be fetched: network failure, timeout, oversized or unparseable body, 5xx. */
export class UpstreamFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamFetchError';
  }
}

const MAX_BYTES = 256 * 1024;

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw new UpstreamFetchError('response too large');
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new UpstreamFetchError('response too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Fetches `url` (GET, or POST with a form body) and returns its JSON body on 200, or its status otherwise.
 *
 * @throws UpstreamFetchError on a network error, a timeout, a body over 256 KiB or a 200 body that is not JSON.
 */
export async function fetchJson(
  url: string,
  options: {
    timeoutMs: number;
    headers?: Record<string, string>;
    form?: URLSearchParams;
    /** Read the JSON body of a 4xx answer too (an RFC 6749 5.2 error response). */
    errorBodies?: boolean;
  },
): Promise<FetchJsonResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.form ? 'POST' : 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: { accept: 'application/json', ...options.headers },
      ...(options.form ? { body: options.form } : {}),
    });
  } catch (cause) {
    throw new UpstreamFetchError(`${url} could not be reached`, { cause });
  }
  if (response.status !== 200) {
    if (options.errorBodies && response.status >= 400 && response.status < 500) {
      let errorBody: unknown;
      try {
        errorBody = JSON.parse(await readLimited(response, MAX_BYTES)) as unknown;
      } catch {
        errorBody = undefined;
      }
      return { status: response.status, errorBody };
    }
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  }
  try {
    return {
      status: 200,
      body: JSON.parse(await readLimited(response, MAX_BYTES)) as unknown,
      headers: response.headers,
    };
  } catch (cause) {
    if (cause instanceof UpstreamFetchError) throw cause;
    throw new UpstreamFetchError(`${url} did not answer with JSON`, { cause });
  }
}

/**
 * The `Authorization` header of `client_secret_basic` (RFC 6749 Section 2.3.1): client_id and client_secret are
 * form-urlencoded before they are joined and encoded.
 */
export function clientSecretBasic(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}
