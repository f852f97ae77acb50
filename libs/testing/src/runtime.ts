/** Set by the Jest global setup (`libs/testing/jest/containers.js`) to the run's container servers. */
export const CONTAINER_POSTGRES_URL = 'PORTCULLIS_TESTCONTAINERS_POSTGRES_URL';
export const CONTAINER_REDIS_URL = 'PORTCULLIS_TESTCONTAINERS_REDIS_URL';

/** One line on standard error saying which backing service a test file got. */
export function describeHarness(line: string): void {
  process.stderr.write(`[portcullis:testing] ${line}\n`);
}
