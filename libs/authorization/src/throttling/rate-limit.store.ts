import type { OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';

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

/**
 * Counters in Redis, shared by every instance of the server, so a client cannot multiply its allowance by
 * spreading requests over instances.
 */
export class RedisRateLimitStore implements RateLimitStore, OnApplicationShutdown {
  readonly #redis: Redis;

  constructor(url: string) {
    this.#redis = new Redis(url, { maxRetriesPerRequest: 2 });
  }

  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    const [hits, ttl] = (await this.#redis.eval(HIT, 1, `portcullis:rate:${key}`, String(windowMs))) as [
      number,
      number,
    ];
    return { hits, resetMs: ttl > 0 ? ttl : windowMs };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#redis.quit().catch(() => undefined);
  }
}
