/**
 * The apps run as in production (no pretty logs, production rules), on loopback: the variables production requires
 * are given, and the two development defaults the bench means on purpose are said so (an http loopback issuer, one
 * instance without Redis).
 *
 * `BENCH_PROFILE_DIR=<dir>` profiles the apps under test: each is started with a CPU profiler (profile-preload.cjs)
 * writing `<pid>.cpuprofile` into that directory, and stopped with SIGTERM (a profile is written on a clean exit only)
 * before the scenario tears it down.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RESOURCES } from '@portcullis/authorization';

/** The directory the apps' CPU profiles go to, when profiling. */
export function profileDir(): string | undefined {
  return process.env['BENCH_PROFILE_DIR'] || undefined;
}

/** Starts a CPU profile in the app's process and writes it on exit (Node refuses `--cpu-prof` in NODE_OPTIONS). */
const PROFILE_PRELOAD = fileURLToPath(new URL('../profile-preload.cjs', import.meta.url));

export function productionEnv(): Record<string, string> {
  const profiles = profileDir();
  return {
    NODE_ENV: 'production',
    METRICS_TOKEN: randomBytes(16).toString('base64url'),
    ALLOW_LOOPBACK_ISSUER: 'true',
    SINGLE_INSTANCE: 'true',
    // The development default, named: an authorization server needs its resources set in production.
    RESOURCES: JSON.stringify(DEFAULT_RESOURCES),
    ...(profiles ? { BENCH_PROFILE_DIR: profiles, NODE_OPTIONS: `--require ${PROFILE_PRELOAD}` } : {}),
  };
}

/** When profiling, stops `processes` with SIGTERM and waits (up to 15 s) for their profiles to be written. */
export async function stopProfiled(processes: readonly (ChildProcess | undefined)[]): Promise<void> {
  if (!profileDir()) return;
  await Promise.all(
    processes.map(async (child) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref())]);
    }),
  );
}
