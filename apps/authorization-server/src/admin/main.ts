import { runAdmin } from './admin.js';

process.exitCode = await runAdmin(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
