// The previous release: its version, its commit, and the migrations it shipped (docker/upgrade/previous-release.json),
// what a rolling upgrade starts from and what the migration rules compare against. Plain JavaScript: the upgrade
// suite's global setup loads it untransformed, and it records a release from the command line:
//
//   node tools/e2e/upgrade/release.js record <version> <commit>    # writes docker/upgrade/previous-release.json
//   node tools/e2e/upgrade/release.js check                         # the file agrees with its commit's tree
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const RELEASE_FILE = fileURLToPath(
  new URL('../../../docker/upgrade/previous-release.json', import.meta.url),
);
const MIGRATIONS_PATH = 'libs/persistence/prisma/migrations';

function git(args, options = {}) {
  return execFileSync('git', args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, ...options });
}

/** @returns {{ version: string, commit: string, image: string, migrations: Record<string, string> }} */
export function readRelease() {
  return JSON.parse(readFileSync(RELEASE_FILE, 'utf8'));
}

/**
 * Fails, saying why, unless `commit` is in this clone: a shallow clone (CI's usual fetch depth) lacks older commits,
 * and the previous release's image is built from that commit's tree.
 */
export function requireCommit(release) {
  try {
    git(['cat-file', '-e', `${release.commit}^{commit}`], { stdio: 'ignore' });
    return;
  } catch {
    // explained below
  }
  let shallow = false;
  try {
    shallow = git(['rev-parse', '--is-shallow-repository']).toString().trim() === 'true';
  } catch {
    // not a git work tree at all
  }
  throw new Error(
    `the previous release ${release.version} is commit ${release.commit} (${RELEASE_FILE}), which this clone ` +
      `does not have${shallow ? ' (it is a shallow clone)' : ''}: fetch it (git fetch --unshallow, or ` +
      `git fetch origin ${release.commit}) before building the previous release's image`,
  );
}

/**
 * The migrations in `commit`'s tree, by path under prisma/migrations without `/migration.sql`
 * (`authorization/20261121000000_init`, `own/proxy/...`), each with the SHA-256 of its script (Prisma's checksum).
 */
export function migrationsAt(commit) {
  const listing = git(['ls-tree', '-r', commit, '--', `${MIGRATIONS_PATH}/`]).toString();
  const migrations = {};
  for (const line of listing.split('\n')) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.+)\/migration\.sql$/.exec(line);
    if (!match) continue;
    const [, blob, path] = match;
    const script = git(['cat-file', 'blob', blob]);
    migrations[path.slice(MIGRATIONS_PATH.length + 1)] = createHash('sha256').update(script).digest('hex');
  }
  return Object.fromEntries(Object.entries(migrations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Fails unless the release file's migrations are exactly those of its commit (it was recorded, not hand-edited). */
export function checkRecordedMigrations(release) {
  const actual = migrationsAt(release.commit);
  const recorded = release.migrations;
  const differences = [
    ...Object.keys(actual)
      .filter((name) => recorded[name] !== actual[name])
      .map((name) => `${name}: ${recorded[name] ? 'another checksum' : 'missing'} in the file`),
    ...Object.keys(recorded)
      .filter((name) => !(name in actual))
      .map((name) => `${name}: not in the commit`),
  ];
  if (differences.length > 0) {
    throw new Error(
      `${RELEASE_FILE} does not record the migrations of ${release.commit}: ${differences.join('; ')} ` +
        `(node tools/e2e/upgrade/release.js record ${release.version} ${release.commit})`,
    );
  }
}

function record(version, commitish) {
  if (!version || !commitish) throw new Error('usage: release.js record <version> <commit>');
  const commit = git(['rev-parse', '--verify', `${commitish}^{commit}`])
    .toString()
    .trim();
  const release = { version, commit, image: `portcullis:${version}`, migrations: migrationsAt(commit) };
  writeFileSync(RELEASE_FILE, `${JSON.stringify(release, null, 2)}\n`);
  process.stdout.write(
    `recorded ${version} (${commit}, ${Object.keys(release.migrations).length} migrations) in ${RELEASE_FILE}\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (command === 'record') record(rest[0], rest[1]);
    else if (command === 'check') {
      const release = readRelease();
      requireCommit(release);
      checkRecordedMigrations(release);
      process.stdout.write(`${RELEASE_FILE} agrees with ${release.commit}\n`);
    } else throw new Error('usage: release.js record <version> <commit> | check');
  } catch (error) {
    process.stderr.write(`release: ${error.message}\n`);
    process.exit(1);
  }
}
