/**
 * The load generator: `connections` workers, each repeating one step (one request, or the few requests of a flow)
 * for a fixed window, waiting for each answer before the next (closed loop), with the latency of every step.
 */
import { readFileSync } from 'node:fs';
import { cores, startCpuMeter, type CpuReading } from './cpu-meter.js';

/** What one window measured. */
export interface Window {
  /** Latency of each completed step, in milliseconds. */
  readonly latencies: readonly number[];
  /** The window's length in seconds, from the first step to the last answer. */
  readonly seconds: number;
  /** This process's CPU over the window: the load generator's own share. */
  readonly generator?: CpuReading;
}

/** One worker's step; throws when the step failed (the window then fails with the first error). */
export type Step = (worker: number) => Promise<void>;

/** Runs `step` on `connections` workers for `seconds`. */
export async function drive(connections: number, seconds: number, step: Step): Promise<Window> {
  const latencies: number[] = [];
  let failure: unknown;
  const meter = startCpuMeter();
  const started = performance.now();
  const endAt = started + seconds * 1000;
  let last = started;
  const worker = async (index: number) => {
    while (failure === undefined && performance.now() < endAt) {
      const sent = performance.now();
      try {
        await step(index);
      } catch (error) {
        failure ??= error;
        return;
      }
      last = performance.now();
      latencies.push(last - sent);
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, index) => worker(index)));
  const generator = meter();
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  return { latencies, seconds: (last - started) / 1000, generator };
}

/** Steps per second and latency percentiles (ms) of several windows together. */
export interface Summary {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly count: number;
  /** The load generator's CPU over the windows, in cores (absent when no window measured it). */
  readonly generatorCores?: number;
  /** The server's CPU per step, in milliseconds, when its process was metered ({@link compareMany}). */
  readonly serverCpuMs?: number;
}

export function summarize(windows: readonly Window[]): Summary {
  const latencies = windows.flatMap((window) => window.latencies).sort((a, b) => a - b);
  const seconds = windows.reduce((total, window) => total + window.seconds, 0);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const readings = windows.flatMap((window) => (window.generator ? [window.generator] : []));
  return {
    rate: seconds > 0 ? latencies.length / seconds : 0,
    p50: at(0.5),
    p99: at(0.99),
    count: latencies.length,
    ...(readings.length > 0 ? { generatorCores: cores(readings) } : {}),
  };
}

/** The resident set size of a process, in MiB (Linux `/proc`); `undefined` where it cannot be read. */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}
