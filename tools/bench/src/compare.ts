import { processCpuSeconds } from './cpu-meter.js';
import { drive, summarize, type Step, type Summary, type Window } from './load.js';
import type { Settings } from './settings.js';

/**
 * Several sides of the same step shape, in alternating windows after a warm-up each: one summary per side, in the
 * order given (the first runs first in each round), so load from elsewhere on the machine weighs on all alike.
 * `pids[i]`, when given, is side i's server process: its CPU over the windows is metered ({@link Summary.serverCpuMs}).
 */
export async function compareMany(
  settings: Settings,
  sides: readonly Step[],
  connections = settings.connections,
  pids: readonly (number | undefined)[] = [],
): Promise<Summary[]> {
  for (const side of sides) await drive(connections, settings.warmupSeconds, side);
  const windows: Window[][] = sides.map(() => []);
  const cpu = sides.map(() => 0);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [index, side] of sides.entries()) {
      const before = processCpuSeconds(pids[index]);
      windows[index]?.push(await drive(connections, settings.seconds, side));
      cpu[index] = (cpu[index] ?? 0) + processCpuSeconds(pids[index]) - before;
    }
  }
  return windows.map((measured, index) => {
    const summary = summarize(measured);
    const used = cpu[index] ?? NaN;
    return Number.isFinite(used) && summary.count > 0
      ? { ...summary, serverCpuMs: (used * 1000) / summary.count }
      : summary;
  });
}

/** Ours and the peer ({@link compareMany} of two): the two summaries. */
export async function compare(
  settings: Settings,
  ours: Step,
  peer: Step,
  connections = settings.connections,
  pids: readonly (number | undefined)[] = [],
): Promise<{ ours: Summary; peer: Summary }> {
  const [oursSummary, peerSummary] = await compareMany(settings, [ours, peer], connections, pids);
  if (!oursSummary || !peerSummary) throw new Error('compare: a side was not measured');
  return { ours: oursSummary, peer: peerSummary };
}

/** The entry of `list` a worker owns; a missing one is a bug of the scenario's setup. */
export function own<T>(list: readonly T[], worker: number): T {
  const value = list[worker];
  if (value === undefined) throw new Error(`no state for worker ${worker}`);
  return value;
}
