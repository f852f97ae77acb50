/**
 * What DPoP needs from the app's lifecycle: the shared replay store (`REDIS_URL`) connected at boot and closed at
 * shutdown, and a boot warning for a setting that only suits one instance.
 *
 * Rules kept here:
 * - RFC 9449 Section 11.1: without a shared store, a proof replayed to another instance is not recognised; with
 *   nonces (Section 9) but no shared secret, one instance's nonce is refused by the others. Both are fine for one
 *   instance and said at boot, so a scaled deployment does not meet them by surprise.
 */
import {
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import type { SharedReplayStore } from './shared-replay.store.js';

const CONTEXT = 'Dpop';

class DpopLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly settings: {
      nonce: boolean;
      sharedNonces: boolean;
      store?: SharedReplayStore | undefined;
    },
    private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const { settings, logger } = this;
    if (settings.store) settings.store.connect(logger);
    else {
      logger.warn(
        'DPoP proofs are remembered in this process only (no REDIS_URL): run one instance, or set REDIS_URL',
        CONTEXT,
      );
    }
    if (settings.nonce && !settings.sharedNonces) {
      logger.warn(
        'DPoP nonces are good at this process only (no DPOP_NONCE_SECRET): run one instance, or set it',
        CONTEXT,
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settings.store?.close();
  }
}

/** DPoP's lifecycle, when `dpop` is composed. */
@Module({})
export class DpopModule {
  static forRoot(options: {
    composed: boolean;
    nonce: boolean;
    sharedNonces: boolean;
    store?: SharedReplayStore | undefined;
  }): DynamicModule {
    const { composed, ...settings } = options;
    return {
      module: DpopModule,
      providers: composed
        ? [
            {
              provide: DpopLifecycle,
              useFactory: (logger: Logger) => new DpopLifecycle(settings, logger),
              inject: [Logger],
            },
          ]
        : [],
    };
  }
}
