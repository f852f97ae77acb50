/**
 * Sending a request to the protected resource with its bearer token, as many times as the flow needs.
 *
 * Rules kept here:
 * - MCP "Token Requirements" and RFC 6750 Section 2.1: the access token goes in the `Authorization: Bearer` header
 *   of every request to the resource, never in the URL.
 * - MCP "Token Handling", RFC 9700 Section 4.13 and the fetch standard (HTTP-redirect fetch, step 13): the token
 *   is attached only to requests to the resource's origin and path; on a redirect to another origin the
 *   `Authorization` header is dropped, and stays dropped for the rest of the redirect chain.
 * - Redirects are followed here (so the rule above can be kept) with the fetch standard's method rewriting: 303,
 *   and 301/302 after a POST, continue as a body-less GET. A caller's `redirect: 'manual'` or `'error'` is kept.
 * - The body is buffered once, so the request can be sent again after an authorization (MCP "Authorization Flow
 *   Steps").
 * - RFC 9449 Section 7.1: a DPoP-bound token goes as `Authorization: DPoP <token>` with a proof of the hop's own
 *   method and URL (a fresh one per hop, RFC 9449 Section 4.2); both header fields are subject to the origin rule
 *   above.
 */
import type { FetchLike } from './http.js';
import { discardBody } from './http.js';

/**
 * A request normalised so it can be sent more than once.
 *
 * @see https://fetch.spec.whatwg.org/#concept-request
 */
export interface ReplayableRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Headers;
  readonly body: Uint8Array | undefined;
  readonly redirect: NonNullable<RequestInit['redirect']>;
  readonly signal: AbortSignal | undefined;
}

/**
 * How a request to the resource is authorized: the header fields of each hop. A Bearer token is a fixed
 * `Authorization`; a DPoP-bound one adds a fresh proof per hop (`proof/proof-of-possession.ts`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
export interface ResourceCredentials {
  /** The header field names (lower case) `headersFor` sets; removed from any hop that may not carry them. */
  readonly headerNames: readonly string[];
  /** The header fields of one hop to the resource. */
  headersFor(method: string, url: URL): Promise<Readonly<Record<string, string>>>;
  /** Told of every response of a hop that carried the credentials. */
  received?(url: URL, response: Response): void;
}

/**
 * `Authorization: Bearer <token>`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
export function bearerCredentials(accessToken: string): ResourceCredentials {
  const headers = { authorization: `Bearer ${accessToken}` };
  return { headerNames: ['authorization'], headersFor: async () => headers };
}

const MAX_REDIRECTS = 20;
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/**
 * Normalises fetch's arguments and buffers the body.
 *
 * @see https://fetch.spec.whatwg.org/#dom-request
 */
export async function toReplayableRequest(
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<ReplayableRequest> {
  const needsDuplex = init?.body instanceof ReadableStream;
  const request = new Request(input, needsDuplex ? ({ ...init, duplex: 'half' } as RequestInit) : init);
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  return {
    url: new URL(request.url),
    method: request.method,
    headers: new Headers(request.headers),
    body,
    redirect: init?.redirect ?? (input instanceof Request ? input.redirect : 'follow'),
    signal: init?.signal ?? (input instanceof Request ? input.signal : undefined),
  };
}

/**
 * Whether `url` is the resource or below it: same origin, and the resource's path or a path under it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export function isResourceUrl(url: URL, resource: string): boolean {
  const target = new URL(resource);
  if (url.origin !== target.origin) return false;
  const base = target.pathname.replace(/\/$/, '');
  return base === '' || url.pathname === base || url.pathname.startsWith(`${base}/`);
}

/**
 * Sends the request with `credentials` (a Bearer access token, or a DPoP-bound one) on the resource, following
 * redirects under the rules above.
 *
 * @see https://fetch.spec.whatwg.org/#http-redirect-fetch
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
export async function sendToResource(
  fetchFn: FetchLike,
  request: ReplayableRequest,
  resource: string,
  credentials: ResourceCredentials | string | undefined,
): Promise<Response> {
  const authorization = typeof credentials === 'string' ? bearerCredentials(credentials) : credentials;
  const credentialHeaders = ['authorization', ...(authorization?.headerNames ?? [])];
  let url = request.url;
  let method = request.method;
  let body = request.body;
  const headers = new Headers(request.headers);
  let tokenAllowed = isResourceUrl(url, resource);
  for (let hop = 0; ; hop += 1) {
    const sent = new Headers(headers);
    const carries = tokenAllowed ? authorization : undefined;
    if (carries !== undefined) {
      for (const [name, value] of Object.entries(await carries.headersFor(method, url)))
        sent.set(name, value);
    }
    if (!tokenAllowed) for (const name of credentialHeaders) sent.delete(name);
    const response = await fetchFn(url, {
      method,
      headers: sent,
      ...(body === undefined ? {} : { body: body as NonNullable<RequestInit['body']> }),
      redirect: 'manual',
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    carries?.received?.(url, response);
    const location = response.headers.get('location');
    if (request.redirect === 'manual' || !isRedirect(response.status) || location === null) return response;
    if (request.redirect === 'error') {
      await discardBody(response);
      throw new TypeError(`fetch failed: ${url.href} redirected and redirect is "error"`);
    }
    if (hop >= MAX_REDIRECTS) {
      await discardBody(response);
      throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects from ${request.url.href}`);
    }
    await discardBody(response);
    const next = new URL(location, url);
    if (
      response.status === 303
        ? method !== 'HEAD'
        : (response.status === 301 || response.status === 302) && method === 'POST'
    ) {
      method = 'GET';
      body = undefined;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    if (next.origin !== url.origin) {
      tokenAllowed = false;
      for (const name of credentialHeaders) headers.delete(name);
    }
    url = next;
    tokenAllowed = tokenAllowed && isResourceUrl(url, resource);
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}
