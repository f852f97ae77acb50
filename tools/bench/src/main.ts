/**
 * `npm run bench [-- <scenario>...] [--quick] [--json <file>] [--database-url <url>]`: runs the scenarios (all by
 * default) against the built apps as processes, each beside its peer in the same run. It starts with a calibration
 * line (the load generator against a trivial `node:http` server: the ceiling at that concurrency), prints one line per
 * measure as it is taken (our figure, the peer's, the ratio, p50 and p99, the RSS of each process, the generator's
 * own CPU, whether the goal is met, and a warning when the generator used over half a core), and ends with the table
 * of every row beside its ceiling. The numbers are for reading, never asserted: the exit status is 1 only when a
 * scenario could not run.
 *
 * PostgreSQL: `--database-url`, else BENCH_DATABASE_URL, else TEST_DATABASE_URL, else a Testcontainers one (each
 * scenario makes a fresh database on that server).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { calibrate as measureCeiling, formatCalibration } from './calibration.js';
import type { Summary } from './load.js';
import { formatRow, meetsGoal, rowWarnings, type ResultRow } from './report.js';
import {
  reauthorizationScenario,
  refreshHistoryScenario,
  refreshScaleOutScenario,
  refreshScenario,
} from './scenarios/authorization-server.js';
import { clientIdMetadataScenario } from './scenarios/client-id-metadata.js';
import { clientScenario } from './scenarios/client.js';
import { mcpToolsListScenario } from './scenarios/mcp.js';
import { memoryScenario } from './scenarios/memory.js';
import { coldValidationScenario, resourceServerScenario } from './scenarios/resource-server.js';
import { settingsFor, type Settings } from './settings.js';
import { formatTable } from './table.js';

interface Scenario {
  readonly description: string;
  run(settings: Settings, args: { databaseUrl?: string; quick: boolean }): Promise<ResultRow[]>;
}

interface DpopMeasure {
  bearer: { rps: number; p50: number; p99: number; generatorCores: number };
  dpop: { rps: number; p50: number; p99: number; generatorCores: number };
  settings: { route: string; connections: number; rounds: number; seconds: number; redisUrl?: string };
  rss?: number;
}

const SCENARIOS: Readonly<Record<string, Scenario>> = {
  'resource-server': {
    description: 'a guarded route (cached token verdict) vs the same route unguarded and a bare NestJS route',
    run: (settings) => resourceServerScenario(settings),
  },
  'cold-validation': {
    description:
      'a never-seen token on every request vs one cached token (protected server notes route, guarded route), and per CPU second vs jose',
    run: (settings) => coldValidationScenario(settings),
  },
  'mcp-tools-list': {
    description: 'MCP tools/list (2026-07-28, stateless) on the protected server vs its own /healthz',
    run: (settings) => mcpToolsListScenario(settings),
  },
  refresh: {
    description: 'refresh with rotation on PostgreSQL vs oidc-provider',
    run: (settings) => refreshScenario(settings),
  },
  'refresh-history': {
    description:
      'refresh with rotation on fresh tables, then with a million expired rows in the token tables',
    run: (settings) => refreshHistoryScenario(settings),
  },
  'refresh-scale-out': {
    description:
      'refresh with rotation on two instances on one PostgreSQL vs the same workers on one of them',
    run: (settings) => refreshScaleOutScenario(settings),
  },
  reauthorization: {
    description: '/authorize -> code -> /token with a session and consent, vs oidc-provider',
    run: (settings) => reauthorizationScenario(settings),
  },
  'client-id-metadata': {
    description: 'the re-authorization flow of a client ID metadata document client vs a pre-registered one',
    run: (settings) => clientIdMetadataScenario(settings),
  },
  client: {
    description: 'requests per connection of the client SDK, first and second (the same token store)',
    run: (settings) => clientScenario(settings),
  },
  memory: {
    description: 'RSS of each app idle after boot and after 100,000 requests',
    run: (settings) => memoryScenario(settings),
  },
  dpop: {
    description: 'protected server requests with a DPoP proof each vs Bearer',
    async run(benchSettings, args) {
      const module = (await import(new URL('../dpop.mjs', import.meta.url).href)) as {
        measure(args: string[]): Promise<DpopMeasure>;
      };
      const result = await module.measure([
        ...(args.quick ? ['--quick'] : []),
        '--connections',
        String(benchSettings.connections),
        ...(args.databaseUrl ? ['--database-url', args.databaseUrl] : []),
      ]);
      const { settings } = result;
      return [
        {
          scenario: 'dpop',
          unit: 'req/s',
          connections: settings.connections,
          ours: {
            rate: result.dpop.rps,
            p50: result.dpop.p50,
            p99: result.dpop.p99,
            generatorCores: result.dpop.generatorCores,
            ...rss(result.rss),
          },
          peer: {
            name: 'Bearer',
            rate: result.bearer.rps,
            p50: result.bearer.p50,
            p99: result.bearer.p99,
            generatorCores: result.bearer.generatorCores,
          },
          goal: { ratio: 0.7 },
          setup: `GET /api/notes, cached token verdict, a fresh proof per request, ${settings.connections} connections, ${settings.rounds}x${settings.seconds}s each, replay store ${settings.redisUrl ? 'redis' : 'memory'}`,
        },
      ];
    },
  },
};

function rss(value: number | undefined): { rssMiB?: number } {
  return value === undefined ? {} : { rssMiB: value };
}

const USAGE = `usage: npm run bench -- [${Object.keys(SCENARIOS).join('|')} ...] [--quick] [--json <file>] [--database-url <url>]
${Object.entries(SCENARIOS)
  .map(([name, scenario]) => `  ${name.padEnd(16)} ${scenario.description}`)
  .join('\n')}
`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        quick: { type: 'boolean', default: false },
        json: { type: 'string' },
        'database-url': { type: 'string' },
        connections: { type: 'string' },
        seconds: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = positionals.filter((name) => !(name in SCENARIOS));
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }
  const databaseUrl = values['database-url'] ?? process.env['BENCH_DATABASE_URL'];
  if (databaseUrl) process.env['TEST_DATABASE_URL'] = databaseUrl;
  const settings = settingsFor(values.quick, {
    ...(values.connections ? { connections: Number(values.connections) } : {}),
    ...(values.seconds ? { seconds: Number(values.seconds) } : {}),
  });
  const names = positionals.length > 0 ? positionals : Object.keys(SCENARIOS);
  const rows: ResultRow[] = [];
  const failed: string[] = [];
  const measured = new Map<number, Summary>();
  /** The ceiling at `connections`, measured and printed the first time it is asked for. */
  const calibrate = async (connections: number) => {
    if (measured.has(connections)) return;
    const ceiling = await measureCeiling(settings, connections);
    measured.set(connections, ceiling);
    process.stdout.write(`${formatCalibration(connections, ceiling)}\n`);
  };
  try {
    await calibrate(settings.connections);
  } catch (error) {
    failed.push('calibration');
    process.stderr.write(`calibration: could not run: ${describe(error)}\n`);
  }
  for (const name of names) {
    try {
      const scenarioRows = await (SCENARIOS[name] as Scenario).run(settings, {
        quick: values.quick,
        ...(databaseUrl ? { databaseUrl } : {}),
      });
      for (const row of scenarioRows) {
        process.stdout.write(`${formatRow(row)}\n`);
        for (const warning of rowWarnings(row)) process.stdout.write(`${warning}\n`);
      }
      rows.push(...scenarioRows);
      // A row at another concurrency (c=1) gets its own ceiling, measured once its scenario's servers are gone.
      for (const connections of new Set(scenarioRows.map((row) => row.connections)))
        if (connections !== undefined) await calibrate(connections);
    } catch (error) {
      failed.push(name);
      process.stderr.write(`${name}: could not run: ${describe(error)}\n`);
    }
  }
  process.stdout.write(`\n${formatTable(rows, measured)}\n`);
  if (values.json) {
    const report = {
      date: new Date().toISOString(),
      quick: values.quick,
      node: process.version,
      calibration: [...measured].map(([connections, ceiling]) => ({ connections, ...ceiling })),
      rows: rows.map((row) => ({
        ...row,
        ...(row.peer ? { ratio: row.ours.rate / row.peer.rate } : {}),
        goalMet: meetsGoal(row),
      })),
      failed,
    };
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  }
  return failed.length > 0 ? 1 : 0;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
