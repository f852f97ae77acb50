import { Injectable, Logger, Optional } from '@nestjs/common';
import type { Prisma } from '@portcullis/persistence';
import { PinoLogger } from 'nestjs-pino';
import { SecurityEventRepository } from './security-event.repository.js';

/**
 * The security events the authorization server (and the proxy) record, one row and one structured log line each.
 * Names are `subject.what`, stable: operators alert on them.
 */
export const SECURITY_EVENT_TYPES = [
  'sign_in.succeeded',
  'sign_in.failed',
  'consent.granted',
  'consent.revoked',
  'authorization_code.replayed',
  'refresh_token.reused',
  'client.registered',
  'client.deleted',
  'signing_key.rotated',
  'signing_key.withdrawn',
  'introspection.refused',
  'token_exchange.refused',
  'upstream_connection.connected',
  'upstream_connection.lost',
  'upstream_connection.removed',
] as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** Events an operator should look at: someone presented what was used already, or signing keys changed. */
const WARNINGS: ReadonlySet<SecurityEventType> = new Set([
  'authorization_code.replayed',
  'refresh_token.reused',
  'sign_in.failed',
  'introspection.refused',
  'token_exchange.refused',
]);

/** What an event is about. */
export interface SecurityEventFields {
  readonly userId?: string;
  readonly clientId?: string;
  readonly detail?: Prisma.InputJsonObject;
}

/**
 * Records security events: a row in `security_events` (listed by `portcullis-admin events`, swept after
 * SECURITY_EVENT_RETENTION) and a log line (`securityEvent` is the type), with the request id and the client address
 * of the request that caused it. Recording never fails a request: a row that cannot be stored is said in the log,
 * which keeps the event.
 */
@Injectable()
export class SecurityEvents {
  readonly #fallback = new Logger('SecurityEvents');

  constructor(
    private readonly events: SecurityEventRepository,
    @Optional() private readonly logger?: PinoLogger,
  ) {}

  async record(type: SecurityEventType, fields: SecurityEventFields = {}): Promise<void> {
    const request = this.#request();
    const line = {
      securityEvent: type,
      ...(fields.userId ? { userId: fields.userId } : {}),
      ...(fields.clientId ? { clientId: fields.clientId } : {}),
      ...(fields.detail ? { detail: fields.detail } : {}),
    };
    // Outside an app (the admin tool, which reports what it did itself) there is no log: the row alone.
    if (!this.logger) {
      await this.events.insert({ type, ...fields });
      return;
    }
    if (WARNINGS.has(type)) this.logger.warn(line, `security event ${type}`);
    else this.logger.info(line, `security event ${type}`);
    try {
      await this.events.insert({ type, ...fields, ...request });
    } catch (error) {
      this.#fallback.error(
        { err: error, securityEvent: type },
        'security event not stored (it is in this log)',
      );
    }
  }

  /** The request id and client address of the request in progress, as its logger knows them. */
  #request(): { requestId?: string; ip?: string } {
    try {
      const bindings = this.logger?.logger.bindings() as
        { req?: { id?: unknown; remoteAddress?: unknown } } | undefined;
      const id = bindings?.req?.id;
      const ip = bindings?.req?.remoteAddress;
      return {
        ...(typeof id === 'string' ? { requestId: id } : {}),
        ...(typeof ip === 'string' ? { ip } : {}),
      };
    } catch {
      return {};
    }
  }
}
