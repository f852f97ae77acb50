/** Flood tests: the malformed traffic (scripts/flood.mjs, a process of its own) and what is measured meanwhile. */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'undici';

const FLOOD = fileURLToPath(new URL('../scripts/flood.mjs', import.meta.url));

/** What a flood reports when it is over. */
export interface FloodReport {
  readonly sent: number;
  readonly ms: number;
  /** Slowloris connections the app closed before the flood ended. */
  readonly slowlorisClosedByServer: number;
}

/** Runs scripts/flood.mjs against `port` in its own process; resolves with its report. */
export function flood(
  port: number,
  count: number,
  concurrency: number,
  slowloris: number,
): Promise<FloodReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [FLOOD, String(port), String(count), String(concurrency), String(slowloris)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`flood.mjs exited with ${code}`));
      else resolve(JSON.parse(out) as FloodReport);
    });
  });
}

/** A process's resident set size in MiB, from /proc. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

/** The value at quantile `q` (0 to 1) of `values`. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/**
 * The V8 heap a process uses after a full garbage collection, in MiB, asked through its inspector (the process runs
 * with `--inspect=127.0.0.1:<port>`, loopback only): what stays allocated, unlike RSS, which keeps the heap's
 * high-water mark for as long as V8 and the allocator see fit.
 *
 * @see https://chromedevtools.github.io/devtools-protocol/v8/HeapProfiler/#method-collectGarbage
 * @see https://chromedevtools.github.io/devtools-protocol/v8/Runtime/#method-getHeapUsage
 */
export async function heapUsedAfterGcMiB(inspectorPort: number): Promise<number> {
  return withInspector(inspectorPort, async (call) => {
    await call('HeapProfiler.enable');
    // Twice: a second full collection frees what the first one's finalizers released.
    await call('HeapProfiler.collectGarbage');
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.getHeapUsage');
    return Number(usage['usedSize']) / (1024 * 1024);
  });
}

/** The size of each V8 heap space of a process (MiB), asked through its inspector, without collecting first. */
export async function heapSpacesMiB(inspectorPort: number): Promise<Record<string, number>> {
  return withInspector(inspectorPort, async (call) => {
    const answer = await call('Runtime.evaluate', {
      expression:
        "JSON.stringify(process.getBuiltinModule('node:v8').getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]))",
      returnByValue: true,
    });
    const value = (answer['result'] as { value?: string } | undefined)?.value ?? '[]';
    return Object.fromEntries(
      (JSON.parse(value) as [string, number][]).map(([name, size]) => [name, size / (1024 * 1024)]),
    );
  });
}

type InspectorCall = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

async function withInspector<T>(
  inspectorPort: number,
  work: (call: InspectorCall) => Promise<T>,
): Promise<T> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  if (!target) throw new Error('no inspector target');
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('inspector connection failed')));
  });
  let id = 0;
  const call: InspectorCall = (method, params = {}) =>
    new Promise((resolve) => {
      const mine = ++id;
      const listener = (event: { data: unknown }) => {
        const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
        if (message.id !== mine) return;
        socket.removeEventListener('message', listener);
        resolve(message.result ?? {});
      };
      socket.addEventListener('message', listener);
      socket.send(JSON.stringify({ id: mine, method, params }));
    });
  try {
    return await work(call);
  } finally {
    socket.close();
  }
}
