/**
 * The DPoP replay store every instance of this server shares: Redis (`REDIS_URL`).
 *
 * Rules kept here:
 * - RFC 9449 Section 11.1: a proof's `jti` is accepted once across every instance behind one balancer, so the
 *   record is one atomic `SET NX PX` in Redis (`redisReplayStore` of the extension).
 * - Fail closed: while Redis cannot answer, no proof is accepted. A command fails fast (one reconnection attempt,
 *   then a bounded wait) and the host answers `temporarily_unavailable` (503) with `Retry-After`, never a verdict on
 *   the proof.
 * - An outage is logged once when it starts and once when it ends, not once per reconnection attempt.
 */
import { Logger, type LoggerService } from '@nestjs/common';
import { redisReplayStore, type RedisSetNx, type ReplayStore } from '@portcullis/extension-dpop';
import { redisSentinelOptions } from '@portcullis/platform';
import { OAuthError } from '@portcullis/protocol';
import { Redis, type RedisOptions } from 'ioredis';

const CONTEXT = 'DpopReplayStore';

/** How long one `SET NX` may take before the request is refused as unavailable. */
const COMMAND_TIMEOUT_MS = 2_000;

/**
 * What a refusal while Redis cannot answer asks the client to wait, in seconds: about what a Sentinel failover takes
 * (the master missed for 2 s, a replica promoted) before the connection is made again to the new master.
 */
const RETRY_AFTER_SECONDS = 2;

/** A {@link ReplayStore} in Redis with the connection's lifecycle: connected at boot, closed at shutdown. */
export class SharedReplayStore implements ReplayStore {
  #logger: LoggerService = new Logger(CONTEXT);
  readonly #redis: Redis;
  readonly #store: ReplayStore;
  #down = false;

  constructor(url: string) {
    // Lazy: parsing the configuration opens nothing; `connect()` does, when the app boots.
    const options: RedisOptions = {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      // A socket that failed is not waited for at shutdown (ioredis waits 2 s by default).
      disconnectTimeout: 200,
    };
    // Through Sentinel (redis+sentinel://), a reconnection asks the sentinels where the master is now.
    const sentinel = redisSentinelOptions(url);
    this.#redis = sentinel ? new Redis({ ...options, ...sentinel }) : new Redis(url, options);
    this.#redis.on('error', (error: Error) => {
      if (this.#down) return;
      this.#down = true;
      this.#logger.error(
        `Redis is unreachable; DPoP requests are refused until it is back: ${error.message}`,
        CONTEXT,
      );
    });
    this.#redis.on('ready', () => {
      if (!this.#down) return;
      this.#down = false;
      this.#logger.log('Redis is reachable again; DPoP requests are accepted', CONTEXT);
    });
    this.#store = redisReplayStore(this.#redis as unknown as RedisSetNx);
  }

  async useOnce(key: string, expiresAt: Date): Promise<boolean> {
    // A Redis that accepts the connection but does not answer must not hold the request: it is refused instead.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer in time')), COMMAND_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.#store.useOnce(key, expiresAt), timeout]);
    } catch (error) {
      // Not a verdict on the proof: the client is told to retry with a new one, and when (RFC 9110 10.2.3).
      throw new OAuthError(
        'temporarily_unavailable',
        'The proof of possession could not be checked right now; retry with a new proof.',
        { cause: error, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Opens the connection, logging through the app's `logger`; a failure is logged and retried in the background,
   * never thrown.
   */
  connect(logger: LoggerService): void {
    this.#logger = logger;
    if (this.#redis.status === 'wait') this.#redis.connect().catch(() => undefined);
  }

  /** Closes the connection, and stops reconnecting if it is down. */
  async close(): Promise<void> {
    if (this.#redis.status !== 'ready') {
      this.#redis.disconnect();
      return;
    }
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
