import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ClientRepository, hashClientSecret, UserRepository } from '@portcullis/authorization';
import { dpopNoncesPerProcess } from '@portcullis/extension-dpop';
import { APP_CONFIG } from '@portcullis/platform';
import { seedsDemoUser, type Env } from './env.schema.js';

/**
 * The proxy's static client in development (`npm start` runs the proxy with this AS as its upstream): confidential,
 * its one redirect URI the proxy's callback. The secret is a published development default, like the demo password,
 * and the proxy's `UPSTREAM_CLIENT_SECRET` defaults to it in development.
 */
const DEVELOPMENT_PROXY_CLIENT = {
  clientId: 'portcullis-proxy',
  clientSecret: 'portcullis-proxy-development-secret',
  redirectUri: 'http://localhost:4200/upstream/callback',
} as const;

/**
 * What a development boot does beyond production's: the demo user, the proxy's client, and saying out loud which
 * production settings are missing.
 */
@Injectable()
export class DevelopmentSetup implements OnApplicationBootstrap {
  readonly #logger = new Logger('DevelopmentSetup');

  constructor(
    private readonly users: UserRepository,
    private readonly clients: ClientRepository,
    @Inject(APP_CONFIG) private readonly config: Env,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.COOKIE_SECRET) {
      this.#logger.warn(
        'COOKIE_SECRET is not set: using a random one, so sign-ins end when this process stops',
      );
    }
    if (dpopNoncesPerProcess(this.config)) {
      this.#logger.warn(
        'DPOP_NONCE_SECRET is not set: using a random one, so this instance accepts only its own DPoP nonces (instances behind one balancer do not share them)',
      );
    }
    if (!seedsDemoUser(this.config)) return;
    const created = await this.users.ensure('demo', this.config.DEMO_PASSWORD);
    this.#logger.warn(
      `development: ${created ? 'created' : 'using'} user "demo" (password from DEMO_PASSWORD, default "demo")`,
    );
    if (!(await this.clients.find(DEVELOPMENT_PROXY_CLIENT.clientId))) {
      await this.clients.create({
        clientId: DEVELOPMENT_PROXY_CLIENT.clientId,
        clientName: 'Portcullis proxy (development)',
        redirectUris: [DEVELOPMENT_PROXY_CLIENT.redirectUri],
        grantTypes: ['authorization_code', 'refresh_token'],
        tokenEndpointAuthMethod: 'client_secret_basic',
        applicationType: 'web',
        origin: 'preregistered',
        secretHash: hashClientSecret(DEVELOPMENT_PROXY_CLIENT.clientSecret),
      });
      this.#logger.warn(
        `development: created client "${DEVELOPMENT_PROXY_CLIENT.clientId}" for the local proxy`,
      );
    }
  }
}
