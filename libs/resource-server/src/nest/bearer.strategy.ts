/**
 * The passport side of bearer authentication in the NestJS adapter: `passport-http-bearer` reads the credential the
 * core's request checks accepted, and hands the token to the core's {@link TokenVerifier}. Registered under a name
 * unique to each module instance, so two protected apps in one process (tests boot several) never share a strategy
 * through passport's global registry.
 */
import { Inject, Injectable, type OnApplicationShutdown, type Type } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { OAuthError } from '@portcullis/protocol';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthInfo } from '../auth/auth-info.js';
import type { TokenValidation } from '../auth/request-authenticator.js';
import { TokenVerifier } from '../tokens/token-verifier.service.js';

/**
 * Creates the bearer strategy class registered as `name`.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 */
export function createBearerStrategy(name: string): Type<OnApplicationShutdown> {
  @Injectable()
  class BearerStrategy extends PassportStrategy(Strategy, name) implements OnApplicationShutdown {
    constructor(@Inject(TokenVerifier) private readonly verifier: TokenVerifier) {
      super({});
    }

    /** Called by passport with the token; a rejection reaches {@link passportValidation} as passport's error. */
    validate(token: string): Promise<AuthInfo> {
      return this.verifier.verify(token);
    }

    // After the HTTP server has drained (Nest runs onModuleDestroy before it stops serving): a request answered
    // during the drain still finds its strategy.
    onApplicationShutdown(): void {
      passport.unuse(name);
    }
  }
  return BearerStrategy;
}

/**
 * The core's token validation step run through the strategy registered as `name`. Passport is shown only the one
 * credential the core's checks accepted, as a `Bearer` field whatever scheme carried it (the proof of possession is
 * checked by the core afterwards), so its own extraction (which would also look at the body and the query) can never
 * disagree with them.
 */
export function passportValidation(name: string): TokenValidation {
  return (token) =>
    new Promise<AuthInfo>((resolve, reject) => {
      const view = { headers: { authorization: `Bearer ${token}` }, query: {}, body: {} };
      const authenticate = passport.authenticate(
        name,
        { session: false },
        (error: unknown, user: AuthInfo | false | undefined) => {
          if (error) reject(error);
          else if (!user) reject(new OAuthError('invalid_token', 'The access token could not be read.'));
          else resolve(user);
        },
      ) as (request: unknown, response: unknown, next: (error?: unknown) => void) => void;
      authenticate(view, {}, (error) => reject(error ?? new Error('passport ended without a verdict')));
    });
}
