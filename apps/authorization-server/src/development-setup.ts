import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { UserRepository } from '@portcullis/authorization';
import { APP_CONFIG } from '@portcullis/platform';
import { seedsDemoUser, type Env } from './env.schema.js';

/**
 * What a development boot does beyond production's: the demo user, and saying out loud which production settings
 * are missing.
 */
@Injectable()
export class DevelopmentSetup implements OnApplicationBootstrap {
  readonly #logger = new Logger('DevelopmentSetup');

  constructor(
    private readonly users: UserRepository,
    @Inject(APP_CONFIG) private readonly config: Env,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.COOKIE_SECRET) {
      this.#logger.warn('COOKIE_SECRET is not set: using a random one, so sign-ins end when this process stops');
    }
    if (!seedsDemoUser(this.config)) return;
    const created = await this.users.ensure('demo', this.config.DEMO_PASSWORD);
    this.#logger.warn(
      `development: ${created ? 'created' : 'using'} user "demo" (password from DEMO_PASSWORD, default "demo")`,
    );
  }
}
