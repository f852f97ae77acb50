// Runs the command line in-process with captured output and an isolated PORTCULLIS_HOME.
import { run } from '../../src/cli.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCli(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  /** The person at the terminal, answering each question; absent: nobody (a pipe, CI). */
  ask?: (question: string) => Promise<string | undefined>,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(
    argv,
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      ...(ask ? { ask } : {}),
    },
    env,
  );
  return { code, stdout, stderr };
}
