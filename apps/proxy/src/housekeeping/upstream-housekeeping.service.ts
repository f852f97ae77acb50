import { Injectable, Logger } from '@nestjs/common';
import { PeriodicSweep } from '@portcullis/authorization';
import { UpstreamStates } from '../upstream/upstream-state.repository.js';

/** How often expired upstream sign-ins are swept. */
const INTERVAL_MS = 5 * 60_000;

/**
 * Deletes upstream sign-ins past their 10 minutes (a user who never came back from the upstream, an upstream that
 * never answered), so no `state` outlives its lifetime by more than one interval. The authorization server's own
 * housekeeping sweeps the pending authorizations they pointed at.
 */
@Injectable()
export class UpstreamHousekeeping extends PeriodicSweep {
  protected readonly intervalMs = INTERVAL_MS;
  protected readonly logger = new Logger('UpstreamHousekeeping');

  constructor(private readonly states: UpstreamStates) {
    super();
  }

  /** Deletes every upstream sign-in expired at `now`; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const upstreamStates = await this.states.purgeExpired(now);
    if (upstreamStates > 0) this.logger.log({ upstreamStates }, 'swept expired upstream sign-ins');
    return upstreamStates;
  }
}
