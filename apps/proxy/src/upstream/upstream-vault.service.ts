import { Inject, Injectable, Logger } from '@nestjs/common';
import { SecurityEvents } from '@portcullis/authorization';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { UpstreamConnections } from '../connections/upstream-connections.service.js';
import { UpstreamError, isGrantRefused } from './upstream.error.js';
import {
  RefreshLockTimeout,
  UpstreamTokens,
  type RefreshOutcome,
  type StoredConnection,
  type UpstreamTokenSet,
} from './upstream-token.repository.js';

/**
 * An access token is refreshed this long before the upstream said it expires, so that it does not expire on its way
 * to the upstream API (clock skew, the caller's own request time).
 */
export const REFRESH_MARGIN_MS = 60_000;

/**
 * The lifetime taken for a refreshed access token whose answer has no `expires_in` (RFC 6749 5.1 makes it optional)
 * when the token it replaces had one: 5 minutes, so the vault refreshes again soon rather than never.
 */
export const UNSTATED_LIFETIME_MS = 5 * 60_000;

/** The current upstream access token of one user's connection. */
export interface VaultAccessToken {
  readonly accessToken: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: Date;
}

/**
 * The user has no usable connection: never connected (`none`), or the provider no longer honours its grant and the
 * user must connect again (`reconnect`).
 */
export class ConnectionUnavailable extends Error {
  constructor(
    readonly connection: string,
    readonly reason: 'none' | 'reconnect',
  ) {
    super(
      reason === 'none'
        ? `the user has not connected ${connection}`
        : `the user must connect ${connection} again: the provider no longer honours its grant`,
    );
    this.name = 'ConnectionUnavailable';
  }
}

/**
 * The token vault: each user's upstream tokens per connection, refreshed at the provider when they are about to
 * expire. The refresh token rotates where the provider rotates it; one refresh at a time runs per user and
 * connection, within this instance (callers share one refresh) and across instances (the row's lock); a provider
 * answering `invalid_grant` marks the connection as needing the user again and erases its tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2
 */
@Injectable()
export class UpstreamVault {
  readonly #logger = new Logger('UpstreamVault');
  readonly #inFlight = new Map<string, Promise<VaultAccessToken>>();

  constructor(
    private readonly tokens: UpstreamTokens,
    private readonly connections: UpstreamConnections,
    private readonly events: SecurityEvents,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
  ) {}

  /** Whether the vault knows `connection`: the sign-in provider's (`upstream`) or one of `CONNECTIONS`. */
  has(connection: string): boolean {
    return this.connections.has(connection);
  }

  /**
   * The user's access token of `connection`, refreshed first when it expires within {@link REFRESH_MARGIN_MS}.
   *
   * @throws ConnectionUnavailable when the user has no live connection
   * @throws UpstreamError when the provider is slow or down during a refresh (the connection stays as it was)
   */
  accessToken(userId: string, connection: string, now = Date.now()): Promise<VaultAccessToken> {
    const key = `${userId}\n${connection}`;
    const running = this.#inFlight.get(key);
    if (running) return running;
    const promise = this.#accessToken(userId, connection, now).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, promise);
    return promise;
  }

  async #accessToken(userId: string, connection: string, now: number): Promise<VaultAccessToken> {
    // A connection no longer configured: its rows are kept (the operator may bring it back) but never used.
    if (!this.has(connection)) throw new ConnectionUnavailable(connection, 'none');
    const stored = await this.tokens.find(userId, connection);
    const usable = this.#usable(stored, now);
    if (usable) {
      await this.tokens.touch(userId, connection);
      return usable;
    }
    let lost: string | undefined;
    let after: StoredConnection | undefined;
    try {
      after = await this.tokens.refreshLocked(
        userId,
        connection,
        this.options.upstream.timeoutMs,
        async (current) => {
          const outcome = await this.#refresh(connection, current, now);
          if (outcome.kind === 'lost') lost = current?.issuer;
          return outcome;
        },
      );
    } catch (error) {
      if (error instanceof RefreshLockTimeout) {
        throw new UpstreamError('timeout', error.message, { cause: error });
      }
      throw error;
    }
    // Recorded once the lock is released: the event takes a connection of its own.
    if (lost !== undefined) {
      await this.events.record('upstream_connection.lost', {
        userId,
        detail: { connection, upstream: lost },
      });
    }
    const refreshed = this.#usable(after, now);
    if (refreshed) return refreshed;
    throw new ConnectionUnavailable(connection, after === undefined ? 'none' : 'reconnect');
  }

  /**
   * Under the row's lock: nothing to do when another caller refreshed meanwhile (or there is nothing to refresh);
   * otherwise the provider's answer.
   */
  async #refresh(
    connection: string,
    current: StoredConnection | undefined,
    now: number,
  ): Promise<RefreshOutcome> {
    if (!current?.live || this.#usable(current, now) || !current.refreshToken) {
      return { kind: 'unchanged' };
    }
    const client = this.connections.get(connection)?.client;
    if (!client) return { kind: 'unchanged' };
    try {
      const refreshed = await client.refresh(current.refreshToken);
      const tokens: UpstreamTokenSet = {
        accessToken: refreshed.accessToken,
        ...(refreshed.refreshToken ? { refreshToken: refreshed.refreshToken } : {}),
        scopes: refreshed.scopes ?? current.scopes,
        // A token that expired before and whose refresh says nothing of its lifetime is taken to last
        // UNSTATED_LIFETIME_MS: never forever, so the vault asks again and learns when the grant is gone.
        ...(refreshed.expiresAt
          ? { expiresAt: refreshed.expiresAt }
          : current.expiresAt
            ? { expiresAt: new Date(Date.now() + UNSTATED_LIFETIME_MS) }
            : {}),
      };
      return { kind: 'refreshed', tokens };
    } catch (error) {
      if (!isGrantRefused(error))
        throw error instanceof UpstreamError ? error : UpstreamError.from(error, 'refresh');
      this.#logger.warn({ connection, err: error }, 'the upstream refused to refresh a connection');
      return { kind: 'lost' };
    }
  }

  /** The connection's access token when it is live and not about to expire. */
  #usable(stored: StoredConnection | undefined, now: number): VaultAccessToken | undefined {
    if (!stored?.live) return undefined;
    if (stored.expiresAt && stored.expiresAt.getTime() - REFRESH_MARGIN_MS <= now) return undefined;
    return {
      accessToken: stored.accessToken,
      scopes: stored.scopes,
      ...(stored.expiresAt ? { expiresAt: stored.expiresAt } : {}),
    };
  }
}
