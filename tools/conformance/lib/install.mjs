// Installs the public MCP conformance suite and a Node 22 to run it under .cache/conformance (git-ignored), with
// npm's ordinary client. Installed once per pinned version pair; later runs re-use the cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The suite's 0.2.0 line (latest prerelease) and the Node 22 it needs (the suite requires Node 22 or later). */
export const CONFORMANCE_VERSION = '0.2.0-alpha.12';
export const NODE22_VERSION = '22.23.3';

function installedVersion(cacheDir, name) {
  try {
    return JSON.parse(readFileSync(join(cacheDir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * Makes sure the pinned suite and Node 22 are installed in `cacheDir`; returns the paths to run them.
 * Throws with a message a person can act on when npm or the Node binary fails.
 */
export function ensureInstalled(cacheDir, log) {
  const suite = join(cacheDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const node = join(cacheDir, 'node_modules', 'node', 'bin', 'node');
  const upToDate =
    installedVersion(cacheDir, '@modelcontextprotocol/conformance') === CONFORMANCE_VERSION &&
    installedVersion(cacheDir, 'node') === NODE22_VERSION &&
    existsSync(suite) &&
    existsSync(node);
  if (!upToDate) {
    log(
      `Installing @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} and node@${NODE22_VERSION} into ${cacheDir}`,
    );
    mkdirSync(cacheDir, { recursive: true });
    // A package.json of its own keeps the install out of the workspace's lock file.
    writeFileSync(
      join(cacheDir, 'package.json'),
      `${JSON.stringify({ name: 'portcullis-conformance-cache', private: true }, null, 2)}\n`,
    );
    const result = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        cacheDir,
        '--no-audit',
        '--no-fund',
        '--save-exact',
        `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`,
        `node@${NODE22_VERSION}`,
      ],
      { stdio: 'inherit' },
    );
    if (result.status !== 0) throw new Error(`npm install into ${cacheDir} failed (exit ${result.status})`);
  }
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0 || !version.stdout.startsWith('v22.')) {
    throw new Error(
      `${node} is not a working Node 22 (${version.stdout || version.stderr || version.error}); ` +
        `delete ${cacheDir} and run again, or approve the node package's install script (npm install-scripts approve node)`,
    );
  }
  return {
    suite,
    node,
    yamlModule: join(cacheDir, 'node_modules', 'yaml', 'dist', 'index.js'),
    requirementsDir: join(suite, '..', '..', 'requirements'),
  };
}
