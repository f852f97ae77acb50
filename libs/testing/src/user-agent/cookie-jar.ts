import { isIP } from 'node:net';

/** A stored cookie. Times are milliseconds since the epoch. */
export interface Cookie {
  readonly name: string;
  readonly value: string;
  /** The host that set it (host-only) or the Domain attribute's value, lower-case, without a leading dot. */
  readonly domain: string;
  /** True when the cookie had no Domain attribute: it goes back to exactly that host, not its subdomains. */
  readonly hostOnly: boolean;
  readonly path: string;
  readonly secure: boolean;
  /** Stored only: this user-agent runs no scripts, so every cookie is HTTP-only to it. */
  readonly httpOnly: boolean;
  readonly sameSite?: 'Strict' | 'Lax' | 'None';
  /** Absent for a session cookie, which lives until {@link CookieJar.clear}. */
  readonly expires?: number;
  readonly created: number;
}

/** What became of one `Set-Cookie` header. */
export type SetCookieOutcome =
  | { readonly outcome: 'stored'; readonly cookie: Cookie }
  /** Already expired (`Max-Age=0`, a past `Expires`): removes the cookie it names, if there is one. */
  | { readonly outcome: 'deleted'; readonly name: string; readonly removed: boolean }
  | { readonly outcome: 'rejected'; readonly reason: string };

export interface CookieJarOptions {
  /** The clock, for tests of expiry. */
  readonly now?: () => number;
}

/**
 * A browser's cookie store, following RFC 6265bis: host-only versus Domain cookies, Path, Secure (sent and
 * accepted only over a potentially trustworthy URL: https, or http to localhost and loopback addresses, as
 * Chromium and Firefox do), Max-Age over Expires, the `__Secure-` and `__Host-` prefixes, and secure cookies
 * left alone by insecure origins. Cookies ignore ports. There is no public suffix list: a Domain attribute
 * without a dot is accepted only when it is the host itself. SameSite is stored, not enforced.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-5.7
 */
export class CookieJar {
  private readonly now: () => number;
  private store: (Cookie & { readonly order: number })[] = [];
  private order = 0;

  constructor(options: CookieJarOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Stores a cookie from a `Set-Cookie` header received from `url`, and says what became of it. */
  setCookie(header: string, url: string | URL): SetCookieOutcome {
    const requestUrl = new URL(url);
    const parsed = parseSetCookie(header, this.now());
    if (typeof parsed === 'string') return { outcome: 'rejected', reason: parsed };
    const host = canonicalHost(requestUrl);
    const secureOrigin = isPotentiallyTrustworthy(requestUrl);

    let domain = host;
    let hostOnly = true;
    if (parsed.domain !== undefined && parsed.domain !== host) {
      if (!domainMatches(host, parsed.domain)) {
        return {
          outcome: 'rejected',
          reason: `Domain=${parsed.domain} does not domain-match the host ${host}`,
        };
      }
      if (!parsed.domain.includes('.')) {
        return { outcome: 'rejected', reason: `Domain=${parsed.domain} is a top-level domain` };
      }
      domain = parsed.domain;
      hostOnly = false;
    }
    if (parsed.domain !== undefined && parsed.domain === host && !isIP(host.replace(/^\[|\]$/g, ''))) {
      hostOnly = false;
    }
    const path = parsed.path ?? defaultPath(requestUrl);
    const { name, secure } = parsed;
    if (secure && !secureOrigin) {
      return {
        outcome: 'rejected',
        reason: `Secure cookie ${name} from an insecure origin ${requestUrl.origin}`,
      };
    }
    const prefixed = (prefix: string) =>
      name.toLowerCase().startsWith(prefix) || (name === '' && parsed.value.toLowerCase().startsWith(prefix));
    if (prefixed('__secure-') && !secure) {
      return { outcome: 'rejected', reason: `${name || parsed.value}: a __Secure- cookie needs Secure` };
    }
    if (prefixed('__host-')) {
      const problem = !secure
        ? 'needs Secure'
        : !hostOnly || parsed.domain !== undefined
          ? 'may not have a Domain'
          : parsed.path !== '/'
            ? 'needs Path=/'
            : undefined;
      if (problem)
        return { outcome: 'rejected', reason: `${name || parsed.value}: a __Host- cookie ${problem}` };
    }
    if (parsed.sameSite === 'None' && !secure) {
      return { outcome: 'rejected', reason: `${name}: SameSite=None needs Secure` };
    }
    if (!secure && !secureOrigin) {
      // An insecure origin may not overwrite or shadow a secure cookie it could not have set.
      const shadowed = this.store.find(
        (old) =>
          old.secure &&
          old.name === name &&
          (domainMatches(old.domain, domain) || domainMatches(domain, old.domain)) &&
          pathMatches(path, old.path),
      );
      if (shadowed) {
        return {
          outcome: 'rejected',
          reason: `${name} would overwrite a Secure cookie from an insecure origin`,
        };
      }
    }

    const index = this.store.findIndex(
      (old) => old.name === name && old.domain === domain && old.hostOnly === hostOnly && old.path === path,
    );
    const old = index === -1 ? undefined : this.store[index];
    if (parsed.expires !== undefined && parsed.expires <= this.now()) {
      if (index !== -1) this.store.splice(index, 1);
      return { outcome: 'deleted', name, removed: index !== -1 };
    }
    const cookie: Cookie = {
      name,
      value: parsed.value,
      domain,
      hostOnly,
      path,
      secure,
      httpOnly: parsed.httpOnly,
      ...(parsed.sameSite ? { sameSite: parsed.sameSite } : {}),
      ...(parsed.expires !== undefined ? { expires: parsed.expires } : {}),
      created: old?.created ?? this.now(),
    };
    const stored = { ...cookie, order: old?.order ?? this.order++ };
    if (index === -1) this.store.push(stored);
    else this.store[index] = stored;
    return { outcome: 'stored', cookie };
  }

  /** The cookies a request to `url` carries, in the order of its `Cookie` header (longer paths first). */
  cookies(url: string | URL): Cookie[] {
    const requestUrl = new URL(url);
    const host = canonicalHost(requestUrl);
    const secureOrigin = isPotentiallyTrustworthy(requestUrl);
    const path = requestUrl.pathname || '/';
    this.purgeExpired();
    return this.store
      .filter(
        (cookie) =>
          (cookie.hostOnly ? host === cookie.domain : domainMatches(host, cookie.domain)) &&
          pathMatches(path, cookie.path) &&
          (!cookie.secure || secureOrigin),
      )
      .sort((a, b) => b.path.length - a.path.length || a.created - b.created || a.order - b.order)
      .map(({ order: _order, ...cookie }) => cookie);
  }

  /** The `Cookie` header for a request to `url`, or undefined when there is no cookie to send. */
  cookieHeader(url: string | URL): string | undefined {
    const cookies = this.cookies(url);
    if (cookies.length === 0) return undefined;
    return cookies.map(({ name, value }) => (name === '' ? value : `${name}=${value}`)).join('; ');
  }

  /** Every unexpired cookie, whichever host it belongs to. */
  all(): Cookie[] {
    this.purgeExpired();
    return this.store.map(({ order: _order, ...cookie }) => cookie);
  }

  clear(): void {
    this.store = [];
  }

  private purgeExpired(): void {
    const now = this.now();
    this.store = this.store.filter((cookie) => cookie.expires === undefined || cookie.expires > now);
  }
}

/**
 * Whether a URL is a secure context for cookies: https and wss, and http(s) to `localhost`, `*.localhost`,
 * 127.0.0.0/8 and `[::1]`, which browsers treat as potentially trustworthy.
 *
 * @see https://w3c.github.io/webappsec-secure-contexts/#is-origin-trustworthy
 */
export function isPotentiallyTrustworthy(url: URL): boolean {
  if (url.protocol === 'https:' || url.protocol === 'wss:') return true;
  if (url.protocol !== 'http:' && url.protocol !== 'ws:') return false;
  const host = canonicalHost(url);
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    (isIP(host) === 4 && host.startsWith('127.'))
  );
}

interface ParsedSetCookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  expires?: number;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

/** @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-5.6 */
function parseSetCookie(header: string, now: number): ParsedSetCookie | string {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(header)) return 'the header has a control character';
  const [pair = '', ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  const name = eq === -1 ? '' : trim(pair.slice(0, eq));
  const value = trim(eq === -1 ? pair : pair.slice(eq + 1));
  if (name === '' && value === '') return 'the cookie has neither a name nor a value';
  if (name.length + value.length > 4096) return 'the name and value are longer than 4096 octets';
  const cookie: ParsedSetCookie = { name, value, secure: false, httpOnly: false };
  let maxAge: number | undefined;
  let expires: number | undefined;
  for (const attribute of attributes) {
    const at = attribute.indexOf('=');
    const key = trim(at === -1 ? attribute : attribute.slice(0, at)).toLowerCase();
    const attributeValue = at === -1 ? '' : trim(attribute.slice(at + 1));
    if (attributeValue.length > 1024) continue;
    switch (key) {
      case 'expires': {
        const time = Date.parse(attributeValue);
        if (!Number.isNaN(time)) expires = time;
        break;
      }
      case 'max-age':
        if (/^-?\d+$/.test(attributeValue)) {
          const seconds = Number(attributeValue);
          maxAge = seconds <= 0 ? -Infinity : now + Math.min(seconds, 400 * 24 * 3600) * 1000;
        }
        break;
      case 'domain':
        if (attributeValue) cookie.domain = attributeValue.replace(/^\./, '').toLowerCase();
        break;
      case 'path':
        if (attributeValue.startsWith('/')) cookie.path = attributeValue;
        else delete cookie.path;
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'samesite': {
        const sameSite = ({ strict: 'Strict', lax: 'Lax', none: 'None' } as const)[
          attributeValue.toLowerCase() as 'strict' | 'lax' | 'none'
        ];
        if (sameSite) cookie.sameSite = sameSite;
        break;
      }
    }
  }
  // Max-Age wins over Expires, whichever comes first.
  const expiry = maxAge ?? expires;
  if (expiry !== undefined) cookie.expires = expiry;
  return cookie;
}

function trim(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

function canonicalHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, '');
}

/** @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-5.1.3 */
function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  return host.endsWith(`.${domain}`) && isIP(host.replace(/^\[|\]$/g, '')) === 0;
}

/** @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-5.1.4 */
function defaultPath(url: URL): string {
  const path = url.pathname;
  if (!path.startsWith('/')) return '/';
  const lastSlash = path.lastIndexOf('/');
  return lastSlash <= 0 ? '/' : path.slice(0, lastSlash);
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}
