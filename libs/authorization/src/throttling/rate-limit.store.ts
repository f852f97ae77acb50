import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { redisSentinelOptions } from '@portcullis/platform';
import { Redis, type RedisOptions } from 'ioredis';

/** One fixed-window counter: the hits so far and the milliseconds until the window resets. */
export interface RateLimitCount {
  readonly hits: number;
  readonly resetMs: number;
}

/** Where rate-limit counters live: this process, or Redis shared by every instance. */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<RateLimitCount>;
}

/** Counters in this process; enough for one instance, and what development uses. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { hits: number; resetAt: number }>();

  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.#windows.size > 50_000) this.#sweep(now);
      window = { hits: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.hits += 1;
    return { hits: window.hits, resetMs: window.resetAt - now };
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
  }
}

// One round trip, atomic: count the hit and start the window's expiry on the first one.
const HIT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { hits, redis.call('PTTL', KEYS[1]) }
`;

/** After a command failed, how long the local counters answer before Redis is asked again. */
const SKIP_AFTER_FAILURE_MS = 5_000;

/** Where a {@link RedisRateLimitStore} says how its connection is doing: once per outage, never per request. */
export interface RateLimitStoreLogger {
  warn(message: string): void;
  log(message: string): void;
}

/**
 * Counters in Redis, shared by every instance of the server, so a client cannot multiply its allowance by
 * spreading requests over instances. While Redis cannot answer, each instance counts in its own memory (per-instance
 * limits: a rate limit is a protection against floods, and refusing every request because Redis is away would be
 * the outage the limit is meant to prevent); it goes back to the shared counters once Redis is ready again. The
 * outage is logged once when it starts and once when it ends.
 */
export class RedisRateLimitStore implements RateLimitStore, OnApplicationShutdown {
  readonly #redis: Redis;
  readonly #local = new MemoryRateLimitStore();
  readonly #logger: RateLimitStoreLogger;
  #down = false;
  #skipUntil = 0;

  constructor(url: string, logger: RateLimitStoreLogger = new Logger('RateLimit')) {
    this.#logger = logger;
    const options: RedisOptions = {
      // A command while disconnected fails at once (then the local counters answer) instead of waiting in a queue.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: 1_000,
      // Reconnect every second at most, for as long as it takes (through Sentinel: to the master it names then).
      retryStrategy: (attempt) => Math.min(attempt * 200, 1_000),
      // A socket that failed is not waited for at shutdown (ioredis waits 2 s by default).
      disconnectTimeout: 200,
    };
    const sentinel = redisSentinelOptions(url);
    this.#redis = sentinel ? new Redis({ ...options, ...sentinel }) : new Redis(url, options);
    this.#redis.on('error', (error: Error) => this.#outage(error));
    this.#redis.on('ready', () => {
      // A new connection: asked again at once.
      this.#skipUntil = 0;
      this.#recovered();
    });
  }

  /** Whether the counters are the shared ones (Redis answers) rather than this instance's. */
  get shared(): boolean {
    return !this.#down && this.#redis.status === 'ready';
  }

  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    // After a failed command, the local counters answer for a while without asking Redis: a Redis that keeps its
    // connection but stops answering must not cost every request the command timeout.
    if (this.#redis.status !== 'ready' || Date.now() < this.#skipUntil) return this.#local.hit(key, windowMs);
    try {
      const [hits, ttl] = (await this.#redis.eval(HIT, 1, `portcullis:rate:${key}`, String(windowMs))) as [
        number,
        number,
      ];
      this.#recovered();
      return { hits, resetMs: ttl > 0 ? ttl : windowMs };
    } catch (error) {
      this.#skipUntil = Date.now() + SKIP_AFTER_FAILURE_MS;
      this.#outage(error as Error);
      return this.#local.hit(key, windowMs);
    }
  }

  #outage(error: Error): void {
    if (this.#down) return;
    this.#down = true;
    this.#logger.warn(
      `Redis is unreachable (${error.message}): rate limits are counted per instance until it is back`,
    );
  }

  #recovered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#logger.log('Redis is reachable again: rate limits are shared by every instance again');
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.#redis.status !== 'ready') {
      this.#redis.disconnect();
      return;
    }
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
