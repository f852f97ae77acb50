import type { FastifyReply } from 'fastify';

/**
 * The proxy's cookie names follow the authorization server's: `__Host-<base>` under an https issuer (Secure,
 * Path=/, no Domain: no subdomain or plain-http page can set or overwrite it), `<base>` on a plain-http loopback
 * issuer in development, where a browser may refuse Secure cookies.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-4.1.3.2
 */
export function proxyCookieName(base: string, secure: boolean): string {
  return secure ? `__Host-${base}` : base;
}

/** A `Set-Cookie` value: host-only, Path=/, HttpOnly, SameSite=Lax, Secure under https, `maxAge` seconds (0 deletes). */
export function serializeProxyCookie(
  name: string,
  value: string,
  options: { secure: boolean; maxAge: number },
): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAge))}`);
  return parts.join('; ');
}

/** Adds a `Set-Cookie` header, keeping the ones already on the reply (the session cookie, the browser binding). */
export function appendSetCookie(reply: FastifyReply, cookie: string): void {
  const existing = reply.getHeader('set-cookie');
  const list =
    existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header('set-cookie', [...list, cookie]);
}

/** The first cookie of that name in a Cookie header (RFC 6265 5.4 orders more specific paths first). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=');
    if (equals > 0 && part.slice(0, equals).trim() === name) return part.slice(equals + 1).trim();
  }
  return undefined;
}

/** 303 See Other: after a POST the browser follows with a GET (RFC 9110 15.4.4), never re-posting the form. */
export function seeOther(reply: FastifyReply, location: string): void {
  reply.status(303).header('location', location).header('cache-control', 'no-store').send();
}
