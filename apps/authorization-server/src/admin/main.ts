import { Logger } from '@nestjs/common';
import { runAdmin } from './admin.js';

// The services log through Nest's logger, which would write to stdout between the command's own (JSON) output.
Logger.overrideLogger(false);

process.exitCode = await runAdmin(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
