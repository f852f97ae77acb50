import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { isReverseDomainScheme } from '@portcullis/metadata';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';

/**
 * Says at boot which private-use redirect URI schemes are allowed, and warns about each that is not a reverse
 * domain name: RFC 8252 8.4 says such a scheme SHOULD be refused, since any application on the device may claim it
 * (8.6). The operator who named it accepted that (Cursor's `cursor` is one); the log keeps the decision visible.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-8.4
 */
@Injectable()
export class PrivateUseSchemesNotice implements OnModuleInit {
  readonly #logger = new Logger('Registration');

  constructor(@Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions) {}

  onModuleInit(): void {
    const schemes = this.options.allowedRedirectSchemes ?? [];
    if (schemes.length === 0) return;
    this.#logger.log(
      `private-use redirect URI schemes allowed (ALLOWED_REDIRECT_SCHEMES): ${schemes.join(', ')}`,
    );
    for (const scheme of schemes.filter((each) => !isReverseDomainScheme(each))) {
      this.#logger.warn(
        `ALLOWED_REDIRECT_SCHEMES: ${scheme} is not a reverse domain name (RFC 8252 7.1); any application on a person's device can claim ${scheme}: links`,
      );
    }
  }
}
