// The MCP Inspector's command line (npm `@modelcontextprotocol/inspector`, pinned in the root package.json; its
// `--cli` client, the one of its three clients that runs without a terminal or a page), run as a user runs it:
// `mcp-inspector --cli <url> --method ...`. It does its own OAuth: discovery, dynamic registration, PKCE, a loopback
// callback listener (`--callback-url`). Without a TTY it signs in only with MCP_AUTO_OPEN_ENABLED=true, its
// documented switch for that, and then "opens the browser" with the `open` package, which the fake browser answers.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeBrowser } from './fake-browser.js';

const INSPECTOR = fileURLToPath(
  new URL(
    '../../../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
    import.meta.url,
  ),
);

export interface InspectorRun {
  /** Resolves when the process ends. */
  readonly exited: Promise<{ code: number | NodeJS.Signals; stdout: string; stderr: string }>;
  stderr(): string;
  /** Kills the process if it still runs, and waits for its end. */
  kill(): Promise<void>;
}

/**
 * Runs `mcp-inspector --cli <serverUrl> --transport http --format json <args>`, its storage (tokens, registrations,
 * secrets, in files: MCP_STORAGE_DIR, MCP_INSPECTOR_SECRET_STORE=file) and home under `storageDir`, its callback
 * listener on `http://127.0.0.1:<callbackPort>/oauth/callback`, the fake browser on PATH. `stdin` is written to
 * its standard input (the answer to a step-up prompt).
 */
export function runInspector(options: {
  serverUrl: string;
  args: readonly string[];
  callbackPort: number;
  storageDir: string;
  browser: FakeBrowser;
  stdin?: string;
}): InspectorRun {
  const child = spawn(
    process.execPath,
    [
      INSPECTOR,
      '--cli',
      options.serverUrl,
      '--transport',
      'http',
      '--format',
      'json',
      '--callback-url',
      `http://127.0.0.1:${options.callbackPort}/oauth/callback`,
      ...options.args,
    ],
    {
      env: {
        ...options.browser.env,
        HOME: options.storageDir,
        MCP_STORAGE_DIR: join(options.storageDir, 'storage'),
        MCP_INSPECTOR_SECRET_STORE: 'file',
        MCP_AUTO_OPEN_ENABLED: 'true',
        NO_COLOR: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(options.stdin ?? '');
  const exited = new Promise<{ code: number | NodeJS.Signals; stdout: string; stderr: string }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, stderr }));
    },
  );
  exited.catch(() => undefined);
  return {
    exited,
    stderr: () => stderr,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited.catch(() => undefined);
    },
  };
}
