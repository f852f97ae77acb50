/**
 * Where a resource server remembers the `jti` of each DPoP proof it accepted, until the proof could no longer pass
 * the `iat` check (RFC 9449 section 11.1). Instances behind one balancer must share a store: a proof replayed to
 * another instance is a replay all the same.
 */

/** Records keys as used. */
export interface ReplayStore {
  /** Records `key` as used until `expiresAt`; true only the first time. */
  useOnce(key: string, expiresAt: Date): Promise<boolean>;
}

/**
 * A store in this process's memory, bounded: for one instance, and for tests. When it is full the entries
 * closest to expiry go first; a proof whose entry went early could be replayed, so size it for the traffic of
 * one `iat` window.
 */
export function memoryReplayStore(options: { maxEntries?: number; now?: () => number } = {}): ReplayStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, number>();
  const sweep = (at: number): void => {
    for (const [key, expiresAt] of entries) if (expiresAt <= at) entries.delete(key);
  };
  return {
    async useOnce(key, expiresAt) {
      const at = now();
      const previous = entries.get(key);
      if (previous !== undefined && previous > at) return false;
      if (entries.size >= maxEntries) sweep(at);
      if (entries.size >= maxEntries) {
        const oldest = [...entries].sort((a, b) => a[1] - b[1]).slice(0, Math.ceil(maxEntries / 10));
        for (const [victim] of oldest) entries.delete(victim);
      }
      entries.set(key, expiresAt.getTime());
      return true;
    },
  };
}

/** The one Redis command a shared store needs (ioredis and node-redis clients both have it). */
export interface RedisSetNx {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<string | null>;
}

/**
 * A store in Redis, shared by every instance that uses the same server and prefix: `SET key 1 PX ttl NX` is one
 * atomic step, so two instances that receive one proof at once cannot both accept it.
 */
export function redisReplayStore(redis: RedisSetNx, options: { prefix?: string } = {}): ReplayStore {
  const prefix = options.prefix ?? 'portcullis:dpop:jti:';
  return {
    async useOnce(key, expiresAt) {
      const ttl = Math.max(1, expiresAt.getTime() - Date.now());
      return (await redis.set(`${prefix}${key}`, '1', 'PX', ttl, 'NX')) === 'OK';
    },
  };
}
