import { drive, summarize, type Step, type Summary, type Window } from './load.js';
import type { Settings } from './settings.js';

/**
 * Several sides of the same step shape, in alternating windows after a warm-up each: one summary per side, in the
 * order given (the first runs first in each round), so load from elsewhere on the machine weighs on all alike.
 */
export async function compareMany(
  settings: Settings,
  sides: readonly Step[],
  connections = settings.connections,
): Promise<Summary[]> {
  for (const side of sides) await drive(connections, settings.warmupSeconds, side);
  const windows: Window[][] = sides.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [index, side] of sides.entries())
      windows[index]?.push(await drive(connections, settings.seconds, side));
  }
  return windows.map((measured) => summarize(measured));
}

/** Ours and the peer ({@link compareMany} of two): the two summaries. */
export async function compare(
  settings: Settings,
  ours: Step,
  peer: Step,
  connections = settings.connections,
): Promise<{ ours: Summary; peer: Summary }> {
  const [oursSummary, peerSummary] = await compareMany(settings, [ours, peer], connections);
  if (!oursSummary || !peerSummary) throw new Error('compare: a side was not measured');
  return { ours: oursSummary, peer: peerSummary };
}

/** The entry of `list` a worker owns; a missing one is a bug of the scenario's setup. */
export function own<T>(list: readonly T[], worker: number): T {
  const value = list[worker];
  if (value === undefined) throw new Error(`no state for worker ${worker}`);
  return value;
}
