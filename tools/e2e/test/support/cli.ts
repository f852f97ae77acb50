// The built `portcullis` command line (or any script) as a process of its own, with only the environment given (and
// PATH).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../../apps/client-sdk/bin/portcullis.js', import.meta.url));

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `portcullis <args>` and resolves with its exit code and output. */
export function runCli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return runNode(CLI, args, env);
}

/** Runs a Node.js script as a process with only `env` (and PATH); resolves with its exit code and output. */
export function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliRun> {
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
