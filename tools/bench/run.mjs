#!/usr/bin/env node
// `npm run bench -- <name> [options]`: runs the benchmark tools/bench/<name>.mjs against the built apps
// (`npx nx run-many -t build` first). Each benchmark prints one result line.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.mjs') && file !== 'run.mjs')
  .map((file) => file.slice(0, -'.mjs'.length));

const [name, ...args] = process.argv.slice(2);
if (name === undefined || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <${available.join('|')}> [--quick]\n`);
  process.exit(name === undefined ? 0 : 2);
}
const { run } = await import(pathToFileURL(`${here}${name}.mjs`).href);
await run(args);
