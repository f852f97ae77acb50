import { drive, summarize, type Step, type Summary, type Window } from './load.js';
import type { Settings } from './settings.js';

/**
 * Ours and the peer, the same step shape, in alternating windows after a warm-up each: the two summaries. Ours runs
 * first in each round.
 */
export async function compare(
  settings: Settings,
  ours: Step,
  peer: Step,
  connections = settings.connections,
): Promise<{ ours: Summary; peer: Summary }> {
  await drive(connections, settings.warmupSeconds, ours);
  await drive(connections, settings.warmupSeconds, peer);
  const oursWindows: Window[] = [];
  const peerWindows: Window[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    oursWindows.push(await drive(connections, settings.seconds, ours));
    peerWindows.push(await drive(connections, settings.seconds, peer));
  }
  return { ours: summarize(oursWindows), peer: summarize(peerWindows) };
}

/** The entry of `list` a worker owns; a missing one is a bug of the scenario's setup. */
export function own<T>(list: readonly T[], worker: number): T {
  const value = list[worker];
  if (value === undefined) throw new Error(`no state for worker ${worker}`);
  return value;
}
