/** Set by the Jest global setup (`libs/testing/jest/containers.js`) to the run's container servers. */
export const CONTAINER_POSTGRES_URL = 'PORTCULLIS_TESTCONTAINERS_POSTGRES_URL';
export const CONTAINER_REDIS_URL = 'PORTCULLIS_TESTCONTAINERS_REDIS_URL';

let runtime: Promise<boolean> | undefined;

/**
 * Whether Testcontainers can reach a container runtime. Asked once per process; Testcontainers fails fast
 * when there is no Docker engine, and any failure counts as "no runtime" so the harness falls back.
 */
export function containerRuntimeAvailable(): Promise<boolean> {
  runtime ??= (async () => {
    if (process.env['TESTCONTAINERS_DISABLED'] === 'true') return false;
    try {
      const { getContainerRuntimeClient } = await import('testcontainers');
      await withTimeout(getContainerRuntimeClient(), 10_000);
      return true;
    } catch {
      return false;
    }
  })();
  return runtime;
}

/** One line on standard error saying which backing service a test file got. */
export function describeHarness(line: string): void {
  process.stderr.write(`[portcullis:testing] ${line}\n`);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
