import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { UpstreamStates } from '../upstream/upstream-state.repository.js';

/** How often expired upstream sign-ins are swept. */
const INTERVAL_MS = 5 * 60_000;

/**
 * Deletes upstream sign-ins past their 10 minutes (a user who never came back from the upstream, an upstream that
 * never answered), so no `state` outlives its lifetime by more than one interval. The authorization server's own
 * housekeeping sweeps the pending authorizations they pointed at.
 */
@Injectable()
export class UpstreamHousekeeping implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('UpstreamHousekeeping');
  #timer?: NodeJS.Timeout;

  constructor(private readonly states: UpstreamStates) {}

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.#logger.warn({ err: error }, 'sweep failed'));
    }, INTERVAL_MS);
    this.#timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.#timer);
  }

  /** Deletes every upstream sign-in expired at `now`; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const upstreamStates = await this.states.purgeExpired(now);
    if (upstreamStates > 0) this.#logger.log({ upstreamStates }, 'swept expired upstream sign-ins');
    return upstreamStates;
  }
}
