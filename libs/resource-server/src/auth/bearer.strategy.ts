/**
 * The passport side of bearer authentication: `passport-http-bearer` reads the credential, and the token goes to
 * the {@link TokenVerifier}. Registered under a name unique to this module instance, so two protected apps in one
 * process (tests boot several) never share a strategy through passport's global registry.
 */
import { Inject, Injectable, type OnApplicationShutdown, type Type } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import { TokenVerifier } from '../tokens/token-verifier.service.js';
import type { AuthInfo } from './auth-info.js';

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

    /** Called by passport with the token; a rejection reaches the guard as passport's error. */
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
