/**
 * The load generator's own CPU: `process.cpuUsage()` (user and system, every thread of this process) over wall time,
 * in cores. A generator near a core of its own on a shared machine takes that core from the servers it measures and
 * caps what it can send, so a rate measured with it over half a core says as much about the generator as the server.
 */

import { readFileSync } from 'node:fs';

/** Over this many cores the generator may be what limits the rate (warned about beside the figure). */
export const GENERATOR_CORES_WARNING = 0.5;

/** What a meter read: CPU seconds this process used and the wall seconds they were used over. */
export interface CpuReading {
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
}

/** Starts a meter; the function it returns reads it (it may be read more than once, each time from the start). */
export function startCpuMeter(): () => CpuReading {
  const cpu = process.cpuUsage();
  const started = performance.now();
  return () => {
    const used = process.cpuUsage(cpu);
    return {
      cpuSeconds: (used.user + used.system) / 1e6,
      wallSeconds: (performance.now() - started) / 1000,
    };
  };
}

/**
 * CPU seconds another process has used so far (user and system, all threads), from Linux `/proc` (clock ticks of
 * 1/100 s); `NaN` where it cannot be read. Unlike a rate, the CPU a server spends per request does not drop when the
 * machine is shared: it is the figure to compare across runs on a loaded machine.
 */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Cores used over several readings together (`NaN` when none has any wall time). */
export function cores(readings: readonly CpuReading[]): number {
  const wall = readings.reduce((total, reading) => total + reading.wallSeconds, 0);
  const cpu = readings.reduce((total, reading) => total + reading.cpuSeconds, 0);
  return wall > 0 ? cpu / wall : NaN;
}

/** A warning for a side whose generator used more than {@link GENERATOR_CORES_WARNING}; `undefined` when it did not. */
export function generatorWarning(what: string, generatorCores: number | undefined): string | undefined {
  if (generatorCores === undefined || !(generatorCores > GENERATOR_CORES_WARNING)) return undefined;
  return `warning: ${what}: the load generator used ${generatorCores.toFixed(2)} cores (over ${GENERATOR_CORES_WARNING}); the rate may be the generator's, not the server's`;
}
