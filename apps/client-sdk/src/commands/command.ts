import type { GlobalOptions } from '../options.js';
import type { Output } from '../output.js';

/** What a command runs with. */
export interface CommandContext {
  readonly options: GlobalOptions;
  readonly positionals: readonly string[];
  readonly output: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Asks the person at the terminal (see `Streams.ask`); absent when there is nobody to ask. */
  readonly ask?: (question: string) => Promise<string | undefined>;
}

/** A command: resolves with the process exit code. */
export type Command = (context: CommandContext) => Promise<number>;
