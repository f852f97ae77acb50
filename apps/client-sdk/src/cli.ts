/**
 * The `portcullis` command line: parses the arguments, runs one command, prints what went wrong in a way a person
 * can act on, and returns the exit code (0 success, 1 failure, 2 usage error).
 */
import { withClientKey } from './client-key.js';
import { withIdJagClient } from './id-jag-client.js';
import { callCommand } from './commands/call.command.js';
import type { Command } from './commands/command.js';
import { conformanceCommand } from './commands/conformance.command.js';
import { doctorCommand } from './commands/doctor.command.js';
import { loginCommand } from './commands/login.command.js';
import { tokensCommand } from './commands/tokens.command.js';
import { toolsCommand } from './commands/tools.command.js';
import { UsageError, USAGE, parseCommandLine } from './options.js';
import { Output, type Streams } from './output.js';

const COMMANDS: Readonly<Record<string, Command>> = {
  login: loginCommand,
  tools: toolsCommand,
  call: callCommand,
  tokens: tokensCommand,
  conformance: conformanceCommand,
  doctor: doctorCommand,
};

/** Runs the command line with these arguments (after `portcullis`). */
export async function run(
  argv: readonly string[],
  streams: Streams,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let output = new Output(streams, false);
  try {
    const { command, positionals, options } = parseCommandLine(argv);
    output = new Output(streams, options.quiet);
    if (options.help || command === undefined || command === 'help') {
      streams.stdout.write(USAGE);
      return command === undefined && !options.help ? 2 : 0;
    }
    const handler = COMMANDS[command];
    if (handler === undefined) throw new UsageError(`unknown command "${command}"`);
    return await handler({
      options: await withIdJagClient(await withClientKey(options)),
      positionals,
      output,
      env,
      ...(streams.ask ? { ask: streams.ask } : {}),
    });
  } catch (error) {
    return output.error(error);
  }
}
