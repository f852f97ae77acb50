import type { GlobalOptions } from '../options.js';
import type { Output } from '../output.js';

/** What a command runs with. */
export interface CommandContext {
  readonly options: GlobalOptions;
  readonly positionals: readonly string[];
  readonly output: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A command: resolves with the process exit code. */
export type Command = (context: CommandContext) => Promise<number>;
