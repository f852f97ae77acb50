// Installs a Node 24 under .cache/node24 (git-ignored) from the npm package `node`, with npm's ordinary client, the way
// the conformance runner installs its Node 22 (tools/conformance/lib/install.mjs), and prints the directory of its
// `node` binary, for a PATH that runs the suites on Node 24 without touching the system Node:
//   PATH="$(node tools/scripts/node24.mjs):$PATH" npx nx run-many -t test
// Installed once per pinned version; later runs re-use the cache. Messages go to stderr, the directory to stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The latest Node 24 (Active LTS) release. */
export const NODE24_VERSION = '24.21.0';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cacheDir = join(root, '.cache', 'node24');
const node = join(cacheDir, 'node_modules', 'node', 'bin', 'node');

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(cacheDir, 'node_modules', 'node', 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

if (installedVersion() !== NODE24_VERSION || !existsSync(node)) {
  console.error(`Installing node@${NODE24_VERSION} into ${cacheDir}`);
  mkdirSync(cacheDir, { recursive: true });
  // A package.json of its own keeps the install out of the workspace's lock file.
  writeFileSync(
    join(cacheDir, 'package.json'),
    `${JSON.stringify({ name: 'portcullis-node24-cache', private: true }, null, 2)}\n`,
  );
  const result = spawnSync(
    'npm',
    ['install', '--prefix', cacheDir, '--no-audit', '--no-fund', '--save-exact', `node@${NODE24_VERSION}`],
    // stdout too goes to stderr: this script's stdout is the directory alone.
    { stdio: ['ignore', process.stderr, 'inherit'] },
  );
  if (result.status !== 0) {
    console.error(`npm install into ${cacheDir} failed (exit ${result.status})`);
    process.exit(1);
  }
}

const version = spawnSync(node, ['--version'], { encoding: 'utf8' });
if (version.status !== 0 || version.stdout.trim() !== `v${NODE24_VERSION}`) {
  console.error(
    `${node} is not a working Node ${NODE24_VERSION} (${version.stdout || version.stderr || version.error}); ` +
      `delete ${cacheDir} and run again, or approve the node package's install script (npm install-scripts approve node)`,
  );
  process.exit(1);
}
process.stdout.write(`${dirname(node)}\n`);
