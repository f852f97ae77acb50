import { generatorWarning } from './cpu-meter.js';

/** One line of the benchmark table: our figure, the peer's in the same run, and their ratio. */
export interface ResultRow {
  readonly scenario: string;
  /** What is counted, e.g. `refreshes/s`. */
  readonly unit: string;
  /** The concurrency it ran at (closed-loop workers): the calibration ceiling it is read against. */
  readonly connections?: number;
  readonly ours: {
    readonly rate: number;
    readonly p50: number;
    readonly p99: number;
    readonly rssMiB?: number;
    /** The load generator's CPU while ours was measured, in cores. */
    readonly generatorCores?: number;
    /** The server process's CPU per step, in milliseconds (robust to a shared machine, unlike the rate). */
    readonly serverCpuMs?: number;
  };
  readonly peer?: {
    readonly name: string;
    readonly rate: number;
    readonly p50: number;
    readonly p99: number;
    readonly rssMiB?: number;
    readonly generatorCores?: number;
    readonly serverCpuMs?: number;
  };
  /** The goal, as a ratio of ours to the peer, or as an absolute rate. */
  readonly goal?: {
    readonly ratio?: number;
    readonly rate?: number;
    readonly p99Ms?: number;
    readonly p50Ms?: number;
    /** The most the resident set may be idle, in MiB, and grow over the run, as a fraction ({@link ResultRow.memory}). */
    readonly idleMiB?: number;
    readonly growth?: number;
    /** The most each named kind of {@link ResultRow.counts} may be. */
    readonly counts?: Readonly<Record<string, number>>;
  };
  /**
   * For a row that counts (requests of one connection, by kind) rather than measures a rate: each kind, in the order
   * printed. `ours.rate` is then their total, and `ours.p50`/`ours.p99` the time the counted work took.
   */
  readonly counts?: Readonly<Record<string, number>>;
  /**
   * For a memory row: the resident set idle after boot and after `requests` requests (in `seconds`); `ours.rate` is
   * then the request rate of that run.
   */
  readonly memory?: {
    readonly idleMiB: number;
    readonly afterMiB: number;
    /** After as many requests again (a leak keeps growing; a heap at its working size does not). */
    readonly afterAgainMiB?: number;
    readonly requests: number;
    readonly seconds: number;
  };
  /** How it was run (connections, windows, database). */
  readonly setup: string;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const generator = (value: number | undefined) =>
  value === undefined ? '' : `, generator ${value.toFixed(2)} cores`;
const rss = (value: number | undefined) => (value === undefined ? '' : `, RSS ${Math.round(value)} MiB`);
const serverCpu = (value: number | undefined) =>
  value === undefined ? '' : `, server CPU ${value.toFixed(2)} ms each`;

/** Whether the row meets each goal it has. */
export function meetsGoal(row: ResultRow): boolean {
  const { goal } = row;
  if (goal === undefined) return true;
  const ratio = row.peer ? row.ours.rate / row.peer.rate : undefined;
  return (
    (goal.ratio === undefined || (ratio !== undefined && ratio >= goal.ratio)) &&
    (goal.rate === undefined || row.ours.rate >= goal.rate) &&
    (goal.p99Ms === undefined || row.ours.p99 <= goal.p99Ms) &&
    (goal.p50Ms === undefined || row.ours.p50 <= goal.p50Ms) &&
    Object.entries(goal.counts ?? {}).every(([kind, max]) => (row.counts?.[kind] ?? 0) <= max) &&
    (goal.idleMiB === undefined || (row.memory !== undefined && row.memory.idleMiB <= goal.idleMiB)) &&
    (goal.growth === undefined || (row.memory !== undefined && growthOf(row.memory) <= goal.growth))
  );
}

function growthOf(memory: NonNullable<ResultRow['memory']>): number {
  return memory.afterMiB / memory.idleMiB - 1;
}

function formatMemory(row: ResultRow, memory: NonNullable<ResultRow['memory']>): string {
  const growth = growthOf(memory);
  const goals: string[] = [];
  if (row.goal?.idleMiB !== undefined) goals.push(`idle <= ${row.goal.idleMiB} MiB`);
  if (row.goal?.growth !== undefined) goals.push(`growth <= ${Math.round(row.goal.growth * 100)}%`);
  const goal = goals.length > 0 ? `; goal ${goals.join(', ')}: ${meetsGoal(row) ? 'met' : 'missed'}` : '';
  const again =
    memory.afterAgainMiB === undefined
      ? ''
      : `, after as many again ${Math.round(memory.afterAgainMiB)} MiB (${percent(memory.afterAgainMiB / memory.afterMiB - 1)})`;
  return `${row.scenario}: idle ${Math.round(memory.idleMiB)} MiB, after ${memory.requests} requests ${Math.round(memory.afterMiB)} MiB (${percent(growth)})${again}${goal} [${row.setup}]`;
}

function percent(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
}

/** One line per row: ours, the peer, the ratio, latencies, RSS, and the goal met or missed. */
export function formatRow(row: ResultRow): string {
  if (row.memory) return formatMemory(row, row.memory);
  const latencies = `p50 ${ms(row.ours.p50)}, p99 ${ms(row.ours.p99)}${serverCpu(row.ours.serverCpuMs)}${rss(row.ours.rssMiB)}${generator(row.ours.generatorCores)}`;
  const ours = row.counts
    ? `ours ${Math.round(row.ours.rate)} ${row.unit}: ${Object.entries(row.counts)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ')} (${latencies})`
    : `ours ${Math.round(row.ours.rate)} ${row.unit} (${latencies})`;
  const peer = row.peer
    ? `, ${row.peer.name} ${Math.round(row.peer.rate)} ${row.unit} (p50 ${ms(row.peer.p50)}, p99 ${ms(row.peer.p99)}${serverCpu(row.peer.serverCpuMs)}${rss(row.peer.rssMiB)}${generator(row.peer.generatorCores)}), ratio ${(row.ours.rate / row.peer.rate).toFixed(2)}x`
    : '';
  const goals: string[] = [];
  if (row.goal?.ratio !== undefined) goals.push(`>= ${row.goal.ratio.toFixed(2)}x`);
  if (row.goal?.rate !== undefined) goals.push(`>= ${row.goal.rate} ${row.unit}`);
  if (row.goal?.p99Ms !== undefined) goals.push(`p99 <= ${row.goal.p99Ms} ms`);
  if (row.goal?.p50Ms !== undefined) goals.push(`p50 <= ${row.goal.p50Ms} ms`);
  for (const [kind, max] of Object.entries(row.goal?.counts ?? {})) goals.push(`${kind} <= ${max}`);
  const goal = goals.length > 0 ? `; goal ${goals.join(', ')}: ${meetsGoal(row) ? 'met' : 'missed'}` : '';
  return `${row.scenario}: ${ours}${peer}${goal} [${row.setup}]`;
}

/** The row's generator warnings (a side over half a core), one line each. */
export function rowWarnings(row: ResultRow): string[] {
  return [
    generatorWarning(`${row.scenario}, ours`, row.ours.generatorCores),
    row.peer ? generatorWarning(`${row.scenario}, ${row.peer.name}`, row.peer.generatorCores) : undefined,
  ].filter((warning): warning is string => warning !== undefined);
}
