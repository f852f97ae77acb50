import { createInterface } from 'node:readline/promises';
import { run } from './cli.js';

/** A question at the terminal; nobody to ask without one (a pipe, CI), or once the input has ended. */
async function ask(question: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined;
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await new Promise<string | undefined>((resolve) => {
      // Ctrl-D ends the input: no answer.
      terminal.once('close', () => resolve(undefined));
      terminal.question(question).then(resolve, () => resolve(undefined));
    });
  } finally {
    terminal.close();
  }
}

process.exitCode = await run(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, ask },
  process.env,
);
