import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@portcullis/protocol';

/** Cookies sent by the browser, by name (first wins, as RFC 6265 5.4 orders more specific paths first). */
export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=');
    if (equals <= 0) continue;
    const name = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    if (!cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

/** `value.signature`: HMAC-SHA256 over the name and value, so a value cannot be moved to another cookie. */
export function signCookieValue(name: string, value: string, secret: Uint8Array): string {
  return `${value}.${mac(name, value, secret)}`;
}

/** The value of a signed cookie, or undefined when the signature does not verify. */
export function verifyCookieValue(
  name: string,
  signed: string | undefined,
  secret: Uint8Array,
): string | undefined {
  if (!signed) return undefined;
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const value = signed.slice(0, dot);
  return constantTimeEqual(signed.slice(dot + 1), mac(name, value, secret)) ? value : undefined;
}

function mac(name: string, value: string, secret: Uint8Array): string {
  return createHmac('sha256', secret).update(`${name}=${value}`).digest('base64url');
}

export interface CookieOptions {
  /** Seconds; 0 deletes. Omitted: a session cookie. */
  maxAge?: number;
  secure: boolean;
}

/**
 * A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, no Domain (host-only), and Secure under https, where the
 * name carries the `__Host-` prefix so no subdomain or plain-http page can set or overwrite it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6265#section-4.1
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-4.1.3.2
 */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  if (options.maxAge !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAge))}`);
  return parts.join('; ');
}

/**
 * The cookie name for an issuer: `__Host-<base>` under https; on a plain-http loopback issuer (development),
 * `<base>-<port>`, because browsers share cookies between ports of one host and the authorization server and the
 * proxy of the development stack both run on `localhost`.
 */
export function cookieName(base: string, issuer: URL): string {
  if (issuer.protocol === 'https:') return `__Host-${base}`;
  return `${base}-${issuer.port || '80'}`;
}

/**
 * The cookies of one request and the `Set-Cookie` values of its response, so that services read and set cookies
 * without holding the HTTP objects; the controller that answers copies {@link CookieExchange.outgoing} onto the
 * response.
 */
export class CookieExchange {
  readonly #incoming: Map<string, string>;
  readonly #outgoing: string[] = [];

  constructor(header: string | undefined) {
    this.#incoming = readCookies(header);
  }

  /** The value the browser sent for `name` (the first one, RFC 6265 5.4). */
  get(name: string): string | undefined {
    return this.#incoming.get(name);
  }

  /** Adds a `Set-Cookie` value (from {@link serializeCookie}) to the response. */
  set(cookie: string): void {
    this.#outgoing.push(cookie);
  }

  /** The `Set-Cookie` values to send, in the order they were set. */
  get outgoing(): readonly string[] {
    return this.#outgoing;
  }
}
