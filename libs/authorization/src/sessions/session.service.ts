import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { LoginSession } from '@portcullis/persistence';
import { constantTimeEqual } from '@portcullis/protocol';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import {
  cookieName,
  serializeCookie,
  signCookieValue,
  verifyCookieValue,
  type CookieExchange,
} from '../http/cookies.js';
import { SessionRepository } from './session.repository.js';

/**
 * Login sessions: a signed cookie carrying a random id, backed by a database row that decides whether the
 * session is alive. The cookie is `__Host-` prefixed, Secure, HttpOnly and SameSite=Lax under https; on a
 * plain-http loopback issuer (development) the prefix and Secure cannot be used.
 *
 * CSRF tokens are HMACs bound to the session (or, before login, to a browser-binding cookie) and to the pending
 * authorization they are for, so a token from another session or another request does not verify.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF)
 */
@Injectable()
export class SessionService {
  readonly #secure: boolean;
  readonly #sessionCookie: string;
  readonly #bindingCookie: string;

  constructor(
    private readonly repository: SessionRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {
    const issuer = new URL(options.issuer);
    this.#secure = issuer.protocol === 'https:';
    this.#sessionCookie = cookieName('portcullis-session', issuer);
    this.#bindingCookie = cookieName('portcullis-browser', issuer);
  }

  /** The live session of this browser, if any. */
  async current(cookies: CookieExchange): Promise<LoginSession | undefined> {
    const id = this.#sessionId(cookies);
    if (!id) return undefined;
    const session = await this.repository.find(sessionRowId(id));
    return session && live(session) ? session : undefined;
  }

  /**
   * The live session of this browser, if any, with what its user consented to for `clientId` and `resource`, read
   * together: an authorization request learns in one round trip whether it needs a sign-in or a consent page.
   */
  async currentWithConsent(
    cookies: CookieExchange,
    clientId: string,
    resource: string,
  ): Promise<{ session?: LoginSession; consent?: StoredConsent }> {
    const id = this.#sessionId(cookies);
    if (!id) return {};
    const found = await this.repository.findWithConsent(sessionRowId(id), clientId, resource);
    if (!found || !live(found.session)) return {};
    const { session, consentedScopes } = found;
    return {
      session,
      consent: {
        userId: session.userId,
        clientId,
        resource,
        ...(consentedScopes ? { scopes: consentedScopes } : {}),
      },
    };
  }

  /**
   * Starts a session for a user who just signed in and sets its cookie; `amr` says how they signed in (RFC 8176
   * method values, `pwd` for a password), for the grants made in the session.
   *
   * @see https://www.rfc-editor.org/rfc/rfc8176#section-2
   */
  async start(cookies: CookieExchange, userId: string, amr: readonly string[] = []): Promise<LoginSession> {
    const id = randomBytes(32).toString('base64url');
    const now = new Date();
    const lifetime = this.options.lifetimes.loginSession;
    const session = await this.repository.create({
      id: sessionRowId(id),
      userId,
      csrfSecret: randomBytes(32).toString('base64url'),
      authenticatedAt: now,
      amr: [...amr],
      expiresAt: new Date(now.getTime() + lifetime * 1000),
    });
    this.#setCookie(
      cookies,
      this.#sessionCookie,
      signCookieValue(this.#sessionCookie, id, this.options.cookieSecret),
      lifetime,
    );
    return session;
  }

  /** Signs this browser out: the session row is revoked (so a copied cookie is dead too) and its cookie cleared. */
  async end(cookies: CookieExchange, session: LoginSession): Promise<void> {
    await this.repository.revoke(session.id);
    this.#setCookie(cookies, this.#sessionCookie, '', 0);
  }

  /** The browser-binding value that pre-login CSRF tokens hang on; set on first sight. */
  browserBinding(cookies: CookieExchange): string {
    const existing = verifyCookieValue(
      this.#bindingCookie,
      cookies.get(this.#bindingCookie),
      this.options.cookieSecret,
    );
    if (existing) return existing;
    const binding = randomBytes(16).toString('base64url');
    this.#setCookie(
      cookies,
      this.#bindingCookie,
      signCookieValue(this.#bindingCookie, binding, this.options.cookieSecret),
    );
    return binding;
  }

  /** The browser-binding value already set, if any (a POST never sets one). */
  existingBrowserBinding(cookies: CookieExchange): string | undefined {
    return verifyCookieValue(
      this.#bindingCookie,
      cookies.get(this.#bindingCookie),
      this.options.cookieSecret,
    );
  }

  /** The CSRF token of the login form for one pending authorization. */
  loginCsrfToken(binding: string, interaction: string): string {
    return hmac(this.options.cookieSecret, `login\n${binding}\n${interaction}`);
  }

  /** The CSRF token of the consent form for one pending authorization, bound to the session. */
  consentCsrfToken(session: LoginSession, interaction: string): string {
    return hmac(Buffer.from(session.csrfSecret, 'base64url'), `consent\n${session.id}\n${interaction}`);
  }

  /** Constant-time comparison of a submitted CSRF token. */
  static tokensMatch(expected: string, given: string | undefined): boolean {
    return given !== undefined && given !== '' && constantTimeEqual(given, expected);
  }

  /** The session id this browser's cookie carries, when its signature verifies. */
  #sessionId(cookies: CookieExchange): string | undefined {
    return verifyCookieValue(
      this.#sessionCookie,
      cookies.get(this.#sessionCookie),
      this.options.cookieSecret,
    );
  }

  #setCookie(cookies: CookieExchange, name: string, value: string, maxAge?: number): void {
    cookies.set(
      serializeCookie(name, value, { secure: this.#secure, ...(maxAge === undefined ? {} : { maxAge }) }),
    );
  }
}

/**
 * What a user consented to for one client and resource, as read at the start of a request (see
 * {@link SessionService.currentWithConsent}); `scopes` is absent when they never consented.
 */
export interface StoredConsent {
  readonly userId: string;
  readonly clientId: string;
  readonly resource: string;
  readonly scopes?: readonly string[];
}

/** Whether a stored session still signs its browser in: not revoked (signed out) and not expired. */
function live(session: LoginSession): boolean {
  return !session.revokedAt && session.expiresAt.getTime() > Date.now();
}

/** The row id is a hash of the cookie's id, so a database reader cannot ride a session. */
function sessionRowId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

function hmac(key: Uint8Array, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}
