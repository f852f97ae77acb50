// Rules kept: the MCP security best practices, "Confused Deputy Problem" (a consent cookie is `__Host-` prefixed,
// Secure, HttpOnly, SameSite=Lax, and bound to the client ID it was set for:
// https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem);
// RFC 6265bis 4.1.3.2 (`__Host-`: Secure, Path=/, no Domain). The cookie only ever skips the proxy's page for the
// client it names; after sign-in the per-user registry still decides whether a code is issued without asking.
import { createHash, createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  cookieName,
  ResourceRegistry,
  serializeCookie,
  type AuthorizationServerOptions,
  type CookieExchange,
} from '@portcullis/authorization';
import { constantTimeEqual, scopesSatisfy } from '@portcullis/protocol';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';

/** What a consent cookie says: this browser approved client `c` for scopes `s` at resource `r`, until `e`. */
interface ConsentClaim {
  readonly c: string;
  readonly r: string;
  readonly s: readonly string[];
  /** Expiry, seconds since the epoch. */
  readonly e: number;
}

/** The part of an authorization request a consent cookie is checked against. */
export interface ConsentSubject {
  readonly clientId: string;
  readonly resource: string;
  readonly scopes: readonly string[];
}

/**
 * Consent cookies: one per client, named after a hash of its client ID, whose value is a claim naming the client
 * ID, the resource and the approved scopes, signed with HMAC-SHA256 over the cookie's name and value. A cookie set
 * for client A neither verifies under B's name nor names B, so it never skips B's consent page.
 *
 * Named and set like the authorization server's own cookies (`cookieName`, `serializeCookie`): `__Host-` and Secure
 * under an https issuer; on a plain-http loopback issuer (development) the name ends in the port instead, because
 * browsers share cookies between the ports of one host.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-4.1.3.2
 */
@Injectable()
export class ConsentCookies {
  readonly #secret: Uint8Array;
  readonly #issuer: URL;
  readonly #secure: boolean;
  readonly #ttl: number;

  constructor(
    @Inject(AUTHORIZATION_SERVER_OPTIONS) options: AuthorizationServerOptions,
    @Inject(PROXY_OPTIONS) proxy: ProxyOptions,
    private readonly resources: ResourceRegistry,
  ) {
    this.#secret = options.cookieSecret;
    this.#issuer = new URL(options.issuer);
    this.#secure = this.#issuer.protocol === 'https:';
    this.#ttl = proxy.consentCookieTtl;
  }

  /** The cookie name for `clientId`. */
  name(clientId: string): string {
    return consentCookieName(clientId, this.#issuer);
  }

  /** Whether this browser carries a valid consent cookie covering `subject` (same client, resource, scopes). */
  covers(cookies: CookieExchange, subject: ConsentSubject): boolean {
    const claim = this.#read(cookies, subject.clientId);
    if (!claim || claim.r !== subject.resource) return false;
    const resource = this.resources.find(subject.resource);
    return scopesSatisfy(claim.s, subject.scopes, resource?.scopeHierarchy);
  }

  /** Sets (or widens, for the same resource) the consent cookie of `subject.clientId`. */
  set(cookies: CookieExchange, subject: ConsentSubject): void {
    const earlier = this.#read(cookies, subject.clientId);
    const scopes =
      earlier?.r === subject.resource ? [...new Set([...earlier.s, ...subject.scopes])] : [...subject.scopes];
    const claim: ConsentClaim = {
      c: subject.clientId,
      r: subject.resource,
      s: scopes,
      e: Math.floor(Date.now() / 1000) + this.#ttl,
    };
    const name = this.name(subject.clientId);
    const value = Buffer.from(JSON.stringify(claim)).toString('base64url');
    cookies.set(
      serializeCookie(name, `${value}.${this.#mac(name, value)}`, {
        secure: this.#secure,
        maxAge: this.#ttl,
      }),
    );
  }

  #read(cookies: CookieExchange, clientId: string): ConsentClaim | undefined {
    const name = this.name(clientId);
    const signed = cookies.get(name);
    const dot = signed?.lastIndexOf('.') ?? -1;
    if (!signed || dot <= 0) return undefined;
    const value = signed.slice(0, dot);
    if (!constantTimeEqual(signed.slice(dot + 1), this.#mac(name, value))) return undefined;
    let claim: Partial<ConsentClaim>;
    try {
      claim = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<ConsentClaim>;
    } catch {
      return undefined;
    }
    if (claim.c !== clientId || typeof claim.e !== 'number' || claim.e * 1000 <= Date.now()) return undefined;
    if (typeof claim.r !== 'string' || !Array.isArray(claim.s)) return undefined;
    return claim as ConsentClaim;
  }

  #mac(name: string, value: string): string {
    return createHmac('sha256', this.#secret).update(`consent-cookie\n${name}=${value}`).digest('base64url');
  }
}

/** `portcullis-consent-<first 128 bits of SHA-256(client_id), base64url>`, named for the issuer by `cookieName`. */
export function consentCookieName(clientId: string, issuer: URL): string {
  const digest = createHash('sha256').update(clientId).digest('base64url').slice(0, 22);
  return cookieName(`portcullis-consent-${digest}`, issuer);
}
