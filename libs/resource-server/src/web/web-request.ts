/**
 * A web-standard `Request` as the bearer rules read it (`BearerRequest`).
 *
 * Rules kept here:
 * - RFC 9700 Section 4.3.2, RFC 6750 Section 2.3: the query string is read for `access_token`, which is refused.
 * - RFC 6750 Section 2.2: a form-encoded body is read (from a clone, so the handler still reads the request) for
 *   `access_token`, which is refused; no other body is parsed here. It is read before the token is checked, so at
 *   most {@link FORM_BODY_LIMIT} bytes of it: a longer one (declared or streamed) is refused with 400
 *   `invalid_request` as soon as it passes the limit, never read to its end (a host that streams bodies from the
 *   network would otherwise buffer whatever an anonymous client sends).
 * - RFC 9110 Section 5.3: the Fetch `Headers` of a request join repeated fields into one value with `, `; a joined
 *   `Authorization` or `DPoP` value is malformed for the checks, so two fields are refused (`invalid_request`,
 *   `invalid_dpop_proof`), never read as one.
 */
import { OAuthError } from '@portcullis/protocol';
import type { BearerRequest } from '../auth/bearer-request.js';
import { BearerChallengeError } from '../errors/bearer-challenge.error.js';

const FORM = 'application/x-www-form-urlencoded';

/** The most of a form-encoded body read for `access_token` before the token is checked: 64 KiB. */
export const FORM_BODY_LIMIT = 64 * 1024;

function tooLarge(): BearerChallengeError {
  return new BearerChallengeError(
    new OAuthError(
      'invalid_request',
      `A form-encoded body over ${FORM_BODY_LIMIT} bytes is not accepted before the access token is checked.`,
    ),
  );
}

/** The body of a clone of `request`, refused past {@link FORM_BODY_LIMIT} bytes without reading further. */
async function cappedText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > FORM_BODY_LIMIT) throw tooLarge();
  const body = request.clone().body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > FORM_BODY_LIMIT) {
      // Not awaited: a branch of a clone's tee settles its cancel only once the other branch is cancelled too.
      reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

async function formBody(request: Request): Promise<Record<string, string> | undefined> {
  const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== FORM || request.body === null || request.bodyUsed) return undefined;
  let text: string;
  try {
    text = await cappedText(request);
  } catch (error) {
    if (error instanceof BearerChallengeError) throw error;
    // A body that cannot be read: the handler answers it as it would without us.
    return undefined;
  }
  return Object.fromEntries(new URLSearchParams(text));
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
