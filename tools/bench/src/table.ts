/**
 * The run's table, printed last: one line per row with ours, the reference in the same run, the ratio, both sides'
 * p50/p99, the load generator's CPU on each side, and the calibration ceiling at the row's concurrency; the ceilings
 * themselves first. Markdown, so a full run can be pasted into docs/performance.md as it is.
 */
import type { Summary } from './load.js';
import { meetsGoal, type ResultRow } from './report.js';

const HEADER = [
  'scenario',
  'ours',
  'reference, same run',
  'ratio',
  'p50 / p99 ours',
  'p50 / p99 reference',
  'generator CPU ours / reference',
  'ceiling',
  'goal',
];

const count = (value: number) => Math.round(value).toLocaleString('en');
const latency = (side: { p50: number; p99: number } | undefined, digits = 1) =>
  side ? `${side.p50.toFixed(digits)} / ${side.p99.toFixed(digits)} ms` : '';
/** A rate with its unit: `1,234/s` for a per-second unit, else the unit spelled out (`per CPU second`). */
const rateOf = (value: number, unit: string) =>
  unit.endsWith('/s') ? `${count(value)}/s` : `${count(value)} ${unit}`;
const coresOf = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(2));

function oursCell(row: ResultRow): string {
  if (row.memory) {
    return `RSS idle ${count(row.memory.idleMiB)} MiB, after ${count(row.memory.requests)} requests ${count(row.memory.afterMiB)} MiB`;
  }
  if (row.counts) {
    const kinds = Object.entries(row.counts).map(([kind, value]) => `${kind} ${value}`);
    return `${count(row.ours.rate)} ${row.unit} (${kinds.join(', ')})`;
  }
  return `${count(row.ours.rate)} ${row.unit}`;
}

function ceilingCell(row: ResultRow, ceilings: ReadonlyMap<number, Summary>): string {
  if (row.connections === undefined) return '';
  const ceiling = ceilings.get(row.connections);
  return ceiling ? `c=${row.connections}: ${count(ceiling.rate)}/s` : `c=${row.connections}`;
}

function line(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll('|', '/')).join(' | ')} |`;
}

/** The table of `rows`, after a line per measured ceiling. */
export function formatTable(rows: readonly ResultRow[], ceilings: ReadonlyMap<number, Summary>): string {
  const lines = [line(HEADER), line(HEADER.map(() => '---'))];
  for (const [connections, ceiling] of [...ceilings].sort(([a], [b]) => b - a)) {
    lines.push(
      line([
        `calibration: node:http 200 "ok", c=${connections}`,
        `${count(ceiling.rate)} req/s`,
        '',
        '',
        latency(ceiling, 2),
        '',
        coresOf(ceiling.generatorCores),
        '',
        '',
      ]),
    );
  }
  for (const row of rows) {
    const memoryRow = row.memory !== undefined;
    lines.push(
      line([
        row.scenario,
        oursCell(row),
        row.peer ? `${row.peer.name}: ${rateOf(row.peer.rate, row.unit)}` : '',
        row.peer && !memoryRow ? `${(row.ours.rate / row.peer.rate).toFixed(2)}x` : '',
        memoryRow || row.counts ? '' : latency(row.ours),
        row.peer ? latency(row.peer) : '',
        row.ours.generatorCores === undefined && row.peer?.generatorCores === undefined
          ? ''
          : `${coresOf(row.ours.generatorCores)} / ${coresOf(row.peer?.generatorCores)}`,
        ceilingCell(row, ceilings),
        row.goal ? (meetsGoal(row) ? 'met' : 'missed') : '',
      ]),
    );
  }
  return lines.join('\n');
}
