// A copy of this workspace under the system's temporary directory, for what must not touch the repository's own
// working tree (a generator's run, the tasks on what it wrote). The copy holds every file git would take in a commit
// of the working tree as it is (tracked and untracked, not ignored; a clean CI clone or someone's uncommitted work
// alike) and the repository's installed packages: node_modules is a folder of links to the repository's, except the
// npm workspace links (`@portcullis/* -> ../../libs/*`), which are made again with the same relative targets so they
// resolve to the copy's own projects, and the tools' caches (`.cache`), which start empty. Nx runs there with its
// cache and workspace data in the copy.
import { spawn } from 'node:child_process';
import { copyFile, lstat, mkdir, mkdtemp, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

/** The repository's root. */
export const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

/** A command's exit code and its output (stdout and stderr interleaved, without terminal colours). */
export interface CommandRun {
  readonly code: number;
  readonly output: string;
}

/** The workspace copy: its folder, commands and Nx in it, and its removal. */
export interface WorkspaceCopy {
  readonly dir: string;
  /** Runs `node <args>` in the copy; resolves with its exit code and output whatever the code. */
  node(...args: string[]): Promise<CommandRun>;
  /** Runs the workspace's Nx in the copy (no daemon, no cloud, cache and workspace data under the copy's `.nx`). */
  nx(...args: string[]): Promise<CommandRun>;
  remove(): Promise<void>;
}

/** Runs `command` to its end; rejects only when it cannot start. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, output: stripVTControlCharacters(output) }));
  });
}

/**
 * The environment of a process in the copy: this one without what an enclosing `npm test` or Nx task set for the
 * repository (`NX_WORKSPACE_ROOT_PATH` would point Nx back at it), with Nx's state pinned to the copy.
 */
function copyEnv(dir: string): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !/^(npm_|nx_)/i.test(name) && name !== 'INIT_CWD',
  );
  return {
    ...Object.fromEntries(inherited),
    FORCE_COLOR: '0',
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_TUI: 'false',
    NX_WORKSPACE_ROOT_PATH: dir,
    NX_CACHE_DIRECTORY: join(dir, '.nx/cache'),
    NX_WORKSPACE_DATA_DIRECTORY: join(dir, '.nx/workspace-data'),
  };
}

/** The working tree's files as `git add --all` would take them, by path from the root. */
async function workingTreeFiles(): Promise<string[]> {
  const listed = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    REPOSITORY,
    process.env,
  );
  if (listed.code !== 0) throw new Error(`git ls-files exited with ${listed.code}: ${listed.output}`);
  return [...new Set(listed.output.split('\0').filter(Boolean))];
}

/** Copies the file at `path` into `dir`; a file git tracks but the working tree deleted is left out. */
async function copyInto(dir: string, path: string): Promise<void> {
  const stats = await lstat(join(REPOSITORY, path)).catch(() => undefined);
  if (stats === undefined) return;
  await mkdir(dirname(join(dir, path)), { recursive: true });
  if (stats.isSymbolicLink()) await symlink(await readlink(join(REPOSITORY, path)), join(dir, path));
  else await copyFile(join(REPOSITORY, path), join(dir, path));
}

/** Links `from` (an entry of the repository's node_modules) at `to`: a workspace's relative link keeps its target. */
async function linkEntry(from: string, to: string): Promise<void> {
  const stats = await lstat(from);
  const target = stats.isSymbolicLink() ? await readlink(from) : undefined;
  await symlink(target !== undefined && !isAbsolute(target) ? target : from, to);
}

/** The copy's node_modules: links to the repository's packages, scopes one level down, caches left out. */
async function linkNodeModules(dir: string): Promise<void> {
  const source = join(REPOSITORY, 'node_modules');
  const target = join(dir, 'node_modules');
  await mkdir(target);
  for (const entry of await readdir(source)) {
    if (entry === '.cache') continue;
    if (!entry.startsWith('@')) {
      await linkEntry(join(source, entry), join(target, entry));
      continue;
    }
    await mkdir(join(target, entry));
    for (const scoped of await readdir(join(source, entry))) {
      await linkEntry(join(source, entry, scoped), join(target, entry, scoped));
    }
  }
}

/** A new copy of the workspace, with its packages linked and the Prisma client generated as `npm install` does. */
export async function copyWorkspace(name: string): Promise<WorkspaceCopy> {
  const dir = await mkdtemp(join(tmpdir(), `portcullis-${name}-`));
  const env = copyEnv(dir);
  const copy: WorkspaceCopy = {
    dir,
    node: (...args) => run(process.execPath, args, dir, env),
    nx: (...args) => run(process.execPath, [join(dir, 'node_modules/nx/dist/bin/nx.js'), ...args], dir, env),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  try {
    for (const path of await workingTreeFiles()) await copyInto(dir, path);
    await linkNodeModules(dir);
    // The root package's postinstall: the Prisma client is generated code, ignored by git.
    const generated = await copy.node('tools/scripts/prisma-generate.mjs');
    if (generated.code !== 0)
      throw new Error(`prisma generate exited with ${generated.code}: ${generated.output}`);
    return copy;
  } catch (error) {
    await copy.remove();
    throw error;
  }
}
