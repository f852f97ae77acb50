// Rules kept: details.md "Confused deputy" (the consent cookie is `__Host-` prefixed, Secure, HttpOnly,
// SameSite=Lax, signed and bound to the client ID); RFC 6265bis 4.1.3.2 (`__Host-`: Secure, Path=/, no Domain);
// spec 5.6.6 (the cookie only ever skips the page for the client it names; after sign-in the per-user registry
// still decides whether a code is issued without asking).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  ResourceRegistry,
  type AuthorizationServerOptions,
} from '@portcullis/authorization';
import { scopesSatisfy } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appendSetCookie, cookieValue, proxyCookieName, serializeProxyCookie } from '../http/cookies.js';
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
 * Under an https issuer the name carries `__Host-` and the cookie is Secure; on a plain-http loopback issuer
 * (development) neither can be used, as for the authorization server's own cookies.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-4.1.3.2
 */
@Injectable()
export class ConsentCookies {
  readonly #secret: Uint8Array;
  readonly #secure: boolean;
  readonly #ttl: number;

  constructor(
    @Inject(AUTHORIZATION_SERVER_OPTIONS) options: AuthorizationServerOptions,
    @Inject(PROXY_OPTIONS) proxy: ProxyOptions,
    private readonly resources: ResourceRegistry,
  ) {
    this.#secret = options.cookieSecret;
    this.#secure = new URL(options.issuer).protocol === 'https:';
    this.#ttl = proxy.consentCookieTtl;
  }

  /** The cookie name for `clientId`. */
  name(clientId: string): string {
    return consentCookieName(clientId, this.#secure);
  }

  /** Whether this browser carries a valid consent cookie covering `subject` (same client, resource, scopes). */
  covers(request: FastifyRequest, subject: ConsentSubject): boolean {
    const claim = this.#read(request, subject.clientId);
    if (!claim || claim.r !== subject.resource) return false;
    const resource = this.resources.list().find((candidate) => candidate.uri === subject.resource);
    return scopesSatisfy(claim.s, subject.scopes, resource?.scopeHierarchy);
  }

  /** Sets (or widens, for the same resource) the consent cookie of `subject.clientId`. */
  set(request: FastifyRequest, reply: FastifyReply, subject: ConsentSubject): void {
    const earlier = this.#read(request, subject.clientId);
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
    appendSetCookie(
      reply,
      serializeProxyCookie(name, `${value}.${this.#mac(name, value)}`, {
        secure: this.#secure,
        maxAge: this.#ttl,
      }),
    );
  }

  #read(request: FastifyRequest, clientId: string): ConsentClaim | undefined {
    const name = this.name(clientId);
    const signed = cookieValue(request.headers.cookie, name);
    const dot = signed?.lastIndexOf('.') ?? -1;
    if (!signed || dot <= 0) return undefined;
    const value = signed.slice(0, dot);
    const given = Buffer.from(signed.slice(dot + 1));
    const expected = Buffer.from(this.#mac(name, value));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
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

/** `[__Host-]portcullis-consent-<first 128 bits of SHA-256(client_id), base64url>`. */
export function consentCookieName(clientId: string, secure: boolean): string {
  const digest = createHash('sha256').update(clientId).digest('base64url').slice(0, 22);
  return proxyCookieName(`portcullis-consent-${digest}`, secure);
}
