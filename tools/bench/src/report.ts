/** One line of the benchmark table: our figure, the peer's in the same run, and their ratio. */
export interface ResultRow {
  readonly scenario: string;
  /** What is counted, e.g. `refreshes/s`. */
  readonly unit: string;
  readonly ours: {
    readonly rate: number;
    readonly p50: number;
    readonly p99: number;
    readonly rssMiB?: number;
  };
  readonly peer?: {
    readonly name: string;
    readonly rate: number;
    readonly p50: number;
    readonly p99: number;
    readonly rssMiB?: number;
  };
  /** The goal, as a ratio of ours to the peer, or as an absolute rate. */
  readonly goal?: {
    readonly ratio?: number;
    readonly rate?: number;
    readonly p99Ms?: number;
    readonly p50Ms?: number;
  };
  /** How it was run (connections, windows, database). */
  readonly setup: string;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const rss = (value: number | undefined) => (value === undefined ? '' : `, RSS ${Math.round(value)} MiB`);

/** Whether the row meets each goal it has. */
export function meetsGoal(row: ResultRow): boolean {
  const { goal } = row;
  if (goal === undefined) return true;
  const ratio = row.peer ? row.ours.rate / row.peer.rate : undefined;
  return (
    (goal.ratio === undefined || (ratio !== undefined && ratio >= goal.ratio)) &&
    (goal.rate === undefined || row.ours.rate >= goal.rate) &&
    (goal.p99Ms === undefined || row.ours.p99 <= goal.p99Ms) &&
    (goal.p50Ms === undefined || row.ours.p50 <= goal.p50Ms)
  );
}

/** One line per row: ours, the peer, the ratio, latencies, RSS, and the goal met or missed. */
export function formatRow(row: ResultRow): string {
  const ours = `ours ${Math.round(row.ours.rate)} ${row.unit} (p50 ${ms(row.ours.p50)}, p99 ${ms(row.ours.p99)}${rss(row.ours.rssMiB)})`;
  const peer = row.peer
    ? `, ${row.peer.name} ${Math.round(row.peer.rate)} ${row.unit} (p50 ${ms(row.peer.p50)}, p99 ${ms(row.peer.p99)}${rss(row.peer.rssMiB)}), ratio ${(row.ours.rate / row.peer.rate).toFixed(2)}x`
    : '';
  const goals: string[] = [];
  if (row.goal?.ratio !== undefined) goals.push(`>= ${row.goal.ratio.toFixed(2)}x`);
  if (row.goal?.rate !== undefined) goals.push(`>= ${row.goal.rate} ${row.unit}`);
  if (row.goal?.p99Ms !== undefined) goals.push(`p99 <= ${row.goal.p99Ms} ms`);
  if (row.goal?.p50Ms !== undefined) goals.push(`p50 <= ${row.goal.p50Ms} ms`);
  const goal = goals.length > 0 ? `; goal ${goals.join(', ')}: ${meetsGoal(row) ? 'met' : 'missed'}` : '';
  return `${row.scenario}: ${ours}${peer}${goal} [${row.setup}]`;
}
