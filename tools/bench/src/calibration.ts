/**
 * The bench's ceiling: the same load generator (closed-loop workers through a {@link PoolClient}) against a trivial
 * `node:http` server in a child process (so the bench process's CPU is the generator's alone), at the concurrency
 * of the scenarios. No server of ours can be measured above this rate on this machine, and a scenario whose rate is
 * near it measures the generator.
 */
import { fileURLToPath } from 'node:url';
import { spawnApp } from '@portcullis/testing';
import { drive, summarize, type Summary, type Window } from './load.js';
import { PoolClient } from './pool-client.js';
import type { Settings } from './settings.js';

const TRIVIAL_MAIN = fileURLToPath(new URL('./servers/trivial-http.js', import.meta.url));

/** Measures the ceiling at `connections` workers: warm-up, then `settings.rounds` windows. */
export async function calibrate(settings: Settings, connections: number): Promise<Summary> {
  const app = spawnApp(TRIVIAL_MAIN, {});
  let client: PoolClient | undefined;
  try {
    client = new PoolClient(await app.ready, connections);
    const pool = client;
    const step = async () => {
      const answer = await pool.send('GET', '/');
      if (answer.status !== 200) throw new Error(`the trivial server answered ${answer.status}`);
    };
    await drive(connections, settings.warmupSeconds, step);
    const windows: Window[] = [];
    for (let round = 0; round < settings.rounds; round++)
      windows.push(await drive(connections, settings.seconds, step));
    return summarize(windows);
  } finally {
    await client?.close();
    await app.stop('SIGTERM');
  }
}

/** The line a run starts with. */
export function formatCalibration(connections: number, ceiling: Summary): string {
  return `calibration, c=${connections}: ${Math.round(ceiling.rate)} req/s (p50 ${ceiling.p50.toFixed(2)} ms, p99 ${ceiling.p99.toFixed(2)} ms), generator ${(ceiling.generatorCores ?? NaN).toFixed(2)} cores [the same load generator against node:http answering 200 "ok" in a child process: the most any row can show here at that concurrency]`;
}
