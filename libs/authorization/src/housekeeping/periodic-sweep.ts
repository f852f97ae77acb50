import type { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/**
 * A sweep of expired rows that runs every `intervalMs` while the app runs: the timer never holds the process open,
 * stops at shutdown, and a failed sweep is logged and retried at the next tick.
 */
export abstract class PeriodicSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  protected abstract readonly intervalMs: number;
  protected abstract readonly logger: Logger;
  #timer?: NodeJS.Timeout;

  /** Deletes what expired by `now`. */
  abstract sweep(now?: Date): Promise<unknown>;

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'sweep failed'));
    }, this.intervalMs);
    this.#timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.#timer);
  }
}
