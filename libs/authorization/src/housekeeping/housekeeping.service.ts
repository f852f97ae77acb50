import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SecurityEventRepository } from '../events/security-event.repository.js';
import { SecurityEvents } from '../events/security-events.js';
import { ClientRepository } from '../clients/client.repository.js';
import { HousekeepingRepository } from './housekeeping.repository.js';
import { PeriodicSweep } from './periodic-sweep.js';

/** How often expired rows are swept. */
const INTERVAL_MS = 10 * 60_000;
/** Expired rows are kept this long for diagnosis before they go. */
const GRACE_MS = 60 * 60_000;

/** What one sweep deleted, by table. */
export interface SweepResult {
  pendingAuthorizations: number;
  authorizationCodes: number;
  accessTokens: number;
  loginSessions: number;
  grants: number;
  /** `jti`s of accepted JWTs (client assertions, extension assertions) past their expiry. */
  usedJwtIds: number;
  /** Dynamically registered clients deleted as unused or idle, with their dead grants, tokens and consents. */
  clients: number;
  /** Security events older than the retention (SECURITY_EVENT_RETENTION). */
  securityEvents: number;
}

/**
 * Deletes what can no longer be used: pending authorizations, codes, access token records and login sessions
 * past their expiry, and whole grants past their absolute lifetime with every code and refresh token of theirs.
 * A consumed refresh token stays as long as its grant does, because presenting it again must still revoke the
 * family (RFC 9700 4.14.2). Dynamically registered clients that never completed an authorization within
 * `DCR_UNUSED_CLIENT_TTL`, or have had no live grant for `DCR_IDLE_CLIENT_TTL` since their last one, go too, so that
 * registrations repeated by clients that do not keep their credentials do not pile up (RFC 7591 leaves their
 * lifetime to the server).
 */
@Injectable()
export class HousekeepingService extends PeriodicSweep {
  protected readonly intervalMs = INTERVAL_MS;
  protected readonly logger = new Logger('Housekeeping');

  constructor(
    private readonly housekeeping: HousekeepingRepository,
    @Optional()
    @Inject(AUTHORIZATION_SERVER_OPTIONS)
    private readonly options?: Pick<AuthorizationServerOptions, 'registration' | 'securityEventRetention'>,
    @Optional() private readonly eventRows?: SecurityEventRepository,
    @Optional() private readonly events?: SecurityEvents,
    @Optional() private readonly clients?: ClientRepository,
  ) {
    super();
  }

  async sweep(now = new Date()): Promise<SweepResult> {
    const before = new Date(now.getTime() - GRACE_MS);
    const result = {
      ...(await this.housekeeping.deleteExpired(now, before)),
      clients: await this.#sweepRegistrations(now),
      securityEvents: await this.#sweepSecurityEvents(now),
    };
    if (Object.values(result).some((count) => count > 0)) this.logger.log(result, 'swept expired rows');
    return result;
  }

  /**
   * Deletes the dynamically registered clients that are unused or idle, and everything of theirs, in one statement:
   * the condition (no live grant) is decided in the same statement that deletes, so a client authorized meanwhile
   * stays, and nothing of a deleted client is left half-removed.
   */
  async #sweepRegistrations(now: Date): Promise<number> {
    const { unusedClientTtl, idleClientTtl } = this.options?.registration ?? {};
    if (unusedClientTtl === undefined || idleClientTtl === undefined) return 0;
    const unusedBefore = new Date(now.getTime() - unusedClientTtl * 1000);
    const idleBefore = new Date(now.getTime() - idleClientTtl * 1000);
    const gone = await this.housekeeping.deleteUnusedRegistrations(now, unusedBefore, idleBefore);
    if (gone.length > 0) {
      this.logger.log({ clients: gone }, 'deleted unused or idle registrations');
    }
    for (const clientId of gone) {
      this.clients?.forget(clientId);
      await this.events?.record('client.deleted', { clientId, detail: { by: 'housekeeping' } });
    }
    return gone.length;
  }

  /** Security events past the retention go, a batch a sweep. */
  async #sweepSecurityEvents(now: Date): Promise<number> {
    const retention = this.options?.securityEventRetention;
    if (retention === undefined || !this.eventRows) return 0;
    return this.eventRows.deleteBefore(new Date(now.getTime() - retention * 1000));
  }
}
