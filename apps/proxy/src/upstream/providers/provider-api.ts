import { hasUnsafeCharacter } from '@portcullis/protocol';
import * as oidc from 'openid-client';
import { UpstreamError } from '../upstream.error.js';

/** One answer of a provider's API: its status, and its JSON body when it had one. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Largest API answer read: a person's profile or list of addresses is far smaller. */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * `GET url` at the provider's API with the person's upstream access token (RFC 6750 2.1), through openid-client so
 * that the configuration's deadline and loopback rules hold. The token goes to the provider that issued it and
 * nowhere else.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
export async function getJson(
  config: oidc.Configuration,
  accessToken: string,
  url: URL,
  headers: Readonly<Record<string, string>> = {},
): Promise<ApiAnswer> {
  const response = await oidc.fetchProtectedResource(
    config,
    accessToken,
    url,
    'GET',
    null,
    new Headers({ accept: 'application/json', ...headers }),
  );
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES) {
    throw new UpstreamError('rejected', `${url.pathname}: the answer is too large`);
  }
  if (!(response.headers.get('content-type') ?? '').includes('json'))
    return { status: response.status, body: undefined };
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, body: undefined };
  }
}

/** `value` as a JSON object, else undefined. */
export function asObject(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A stable identifier stated as a non-empty string of plain text, at most 255 characters (OIDC Core 2 for `sub`),
 * or as a non-negative integer (GitHub's numeric `id`), as a string; anything else (a fraction, a boolean, an
 * object) is no identifier.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDToken
 */
export function identifierOf(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value.length > 0 && value.length <= 255 && !hasUnsafeCharacter(value) ? value : undefined;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return undefined;
}
