import { spawn, type ChildProcess } from 'node:child_process';

export interface SpawnedApp {
  readonly process: ChildProcess;
  /** Resolves with the URL from the app's "listening on" log line. */
  readonly ready: Promise<string>;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Sends a signal (default SIGKILL) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals>;
}

/**
 * Runs a built app (`dist/main.js`) as its own process, on a random loopback port unless `env` says
 * otherwise, with only the environment given (plus PATH). For tests of what only a process shows:
 * startup errors, signals, crashes, several replicas.
 */
export function spawnApp(mainPath: string, env: Record<string, string | undefined> = {}): SpawnedApp {
  const child = spawn(process.execPath, [mainPath], {
    env: {
      PATH: process.env['PATH'],
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { stdout, stderr } = child;
  if (!stdout || !stderr) throw new Error('spawnApp: the child has no piped output');
  let out = '';
  let err = '';
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  const ready = new Promise<string>((resolve, reject) => {
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    void exited.then((code) => reject(new Error(`app exited (${code}) before listening: ${err.trim()}`)));
  });
  ready.catch(() => undefined);
  return {
    process: child,
    ready,
    exited,
    stdout: () => out,
    stderr: () => err,
    stop: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** What a finished process printed, and its exit code. */
export interface NodeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a Node.js script as a process with only `env` (and PATH); resolves with its exit code and output. */
export function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env['PATH'], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
