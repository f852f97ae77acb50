import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  cookieName,
  serializeCookie,
  type AuthorizationServerOptions,
  type CookieExchange,
} from '@portcullis/authorization';
import { UPSTREAM_STATE_TTL_SECONDS } from '../proxy.options.js';
import { hash } from './upstream-state.repository.js';

/**
 * The cookie that ties an upstream `state` to the browser that consented: a random value set on the response
 * that sends the browser upstream, whose hash the state record keeps. SameSite=Lax lets it ride the top-level
 * GET back from the upstream; a callback arriving in any other browser (a `state` or a whole callback URL sent to
 * a victim) does not carry it. One cookie per sign-in, named after the state, so two tabs do not clash.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7.1
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.12
 */
@Injectable()
export class SignInCookies {
  readonly #issuer: URL;
  readonly #secure: boolean;

  constructor(@Inject(AUTHORIZATION_SERVER_OPTIONS) options: AuthorizationServerOptions) {
    this.#issuer = new URL(options.issuer);
    this.#secure = this.#issuer.protocol === 'https:';
  }

  /** Sets the cookie of the sign-in `state` and returns the hash its record keeps. */
  issue(cookies: CookieExchange, state: string): string {
    const value = randomBytes(32).toString('base64url');
    cookies.set(
      serializeCookie(this.#name(state), value, { secure: this.#secure, maxAge: UPSTREAM_STATE_TTL_SECONDS }),
    );
    return hash(value);
  }

  /** The hash of this browser's cookie for `state`, if it has one. */
  read(cookies: CookieExchange, state: string): string | undefined {
    const value = cookies.get(this.#name(state));
    return value ? hash(value) : undefined;
  }

  /** Deletes the cookie of `state`: a sign-in is answered once. */
  clear(cookies: CookieExchange, state: string): void {
    cookies.set(serializeCookie(this.#name(state), '', { secure: this.#secure, maxAge: 0 }));
  }

  #name(state: string): string {
    return cookieName(`portcullis-signin-${hash(state).slice(0, 22)}`, this.#issuer);
  }
}
