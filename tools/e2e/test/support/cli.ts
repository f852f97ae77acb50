// The built `portcullis` command line (or any script) as a process of its own, with only the environment given (and
// PATH).
import { fileURLToPath } from 'node:url';
import { runNode, type NodeRun } from '@portcullis/testing';

const CLI = fileURLToPath(new URL('../../../../apps/client-sdk/bin/portcullis.js', import.meta.url));

export type CliRun = NodeRun;

/** Runs `portcullis <args>` and resolves with its exit code and output. */
export function runCli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return runNode(CLI, args, env);
}
