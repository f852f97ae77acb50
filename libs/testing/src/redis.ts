import { CONTAINER_REDIS_URL, describeHarness } from './runtime.js';

export interface TestRedis {
  readonly kind: 'redis' | 'testcontainers';
  readonly url: string;
  stop(): Promise<void>;
}

/** Either a Redis for the test, or why there is none (the caller skips with that reason). */
export type TestRedisResult =
  { redis: TestRedis; skipReason?: undefined } | { redis?: undefined; skipReason: string };

/**
 * A Redis for one test file: `TEST_REDIS_URL`; else the run's Testcontainers Redis (started by the Jest global
 * setup, `libs/testing/jest`); else none, with the reason to print when skipping.
 */
export async function startRedis(): Promise<TestRedisResult> {
  const url = process.env['TEST_REDIS_URL'];
  if (url) {
    describeHarness(`redis: ${url} from TEST_REDIS_URL`);
    return { redis: { kind: 'redis', url, stop: async () => undefined } };
  }
  const containerUrl = process.env[CONTAINER_REDIS_URL];
  if (containerUrl) {
    describeHarness(`redis: Testcontainers Redis at ${new URL(containerUrl).host}`);
    return { redis: { kind: 'testcontainers', url: containerUrl, stop: async () => undefined } };
  }
  const skipReason = 'no Redis: set TEST_REDIS_URL, or run where a container engine answers';
  describeHarness(`redis: skipped (${skipReason})`);
  return { skipReason };
}
