import { containerRuntimeAvailable, describeHarness } from './runtime.js';

export interface TestRedis {
  readonly kind: 'redis' | 'testcontainers';
  readonly url: string;
  stop(): Promise<void>;
}

/** Either a Redis for the test, or why there is none (the caller skips with that reason). */
export type TestRedisResult =
  { redis: TestRedis; skipReason?: undefined } | { redis?: undefined; skipReason: string };

/**
 * A Redis for one test file: `TEST_REDIS_URL`; else Testcontainers `redis:7-alpine` when a container runtime
 * is reachable; else none, with the reason to print when skipping.
 */
export async function startRedis(): Promise<TestRedisResult> {
  const url = process.env['TEST_REDIS_URL'];
  if (url) {
    describeHarness(`redis: ${url} from TEST_REDIS_URL`);
    return { redis: { kind: 'redis', url, stop: async () => undefined } };
  }
  if (await containerRuntimeAvailable()) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    describeHarness('redis: Testcontainers redis:7-alpine');
    return {
      redis: {
        kind: 'testcontainers',
        url: container.getConnectionUrl(),
        stop: async () => {
          await container.stop();
        },
      },
    };
  }
  const skipReason = 'no Redis: set TEST_REDIS_URL or provide a container runtime';
  describeHarness(`redis: skipped (${skipReason})`);
  return { skipReason };
}
