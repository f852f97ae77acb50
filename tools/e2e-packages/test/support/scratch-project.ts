// Projects outside the repository, as a team starts one: a folder under the system's temporary directory whose
// packages come from the local registry of the run (jest/local-registry.js) and the public packages it proxies,
// installed with the user's npm cache. Nothing in them points into the monorepo.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeRun } from '@portcullis/testing';

/** The repository's `examples/` folder, copied (never linked) into scratch projects. */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../../../examples/', import.meta.url));

/** The local registry's URL, which the global setup leaves in the environment. */
export function registry(): string {
  const url = process.env['PORTCULLIS_E2E_REGISTRY'];
  if (!url) {
    throw new Error(
      'PORTCULLIS_E2E_REGISTRY is not set: run these tests with tools/e2e-packages/jest.config.js, whose global setup starts the registry',
    );
  }
  return url;
}

/**
 * The version and tarball integrity the local registry serves as `name`'s `latest`: what a project that installed
 * the published package has in its lockfile.
 */
export async function published(name: string): Promise<{ version: string; integrity: string }> {
  const response = await fetch(`${registry()}/${name.replace('/', '%2f')}`);
  if (!response.ok) throw new Error(`${name} is not in the local registry (${response.status})`);
  const document = (await response.json()) as {
    'dist-tags': { latest: string };
    versions: Record<string, { dist: { integrity: string } }>;
  };
  const version = document['dist-tags'].latest;
  return { version, integrity: document.versions[version]!.dist.integrity };
}

/** A scratch project: its folder, npm in it, and its removal. */
export interface ScratchProject {
  readonly dir: string;
  /** Runs npm in the project; rejects with its output when it exits with another code than 0. */
  npm(...args: string[]): Promise<NodeRun>;
  /** `npm install` (of `packages`, or of the manifest's dependencies) from the local registry. */
  install(...packages: string[]): Promise<NodeRun>;
  /** An installed package as the project's lockfile records it: its version and its tarball's integrity. */
  locked(name: string): Promise<{ version: string; integrity: string } | undefined>;
  remove(): Promise<void>;
}

/** This process's environment without what an enclosing `npm test` set for the repository's own project. */
function npmEnv(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
}

function runNpm(args: readonly string[], cwd: string): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const run = { code: code ?? -1, stdout, stderr };
      if (run.code === 0) resolve(run);
      else
        reject(new Error(`npm ${args.join(' ')} in ${cwd} exited with ${run.code}:\n${stdout}\n${stderr}`));
    });
  });
}

function scratchProject(dir: string): ScratchProject {
  return {
    dir,
    npm: (...args) => runNpm(args, dir),
    install: (...packages) =>
      runNpm(['install', ...packages, '--registry', registry(), '--no-audit', '--no-fund'], dir),
    locked: async (name) => {
      const lockfile = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { version: string; integrity: string; link?: boolean }>;
      };
      const entry = lockfile.packages[`node_modules/${name}`];
      return entry && !entry.link ? { version: entry.version, integrity: entry.integrity } : undefined;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A new scratch project with these files (by path inside it); a `package.json` among them makes it a project. */
export async function createScratchProject(
  name: string,
  files: Readonly<Record<string, string>>,
): Promise<ScratchProject> {
  const dir = await mkdtemp(join(tmpdir(), `portcullis-${name}-`));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return scratchProject(dir);
}

/** A copy of `examples/<name>` as a team copies it (no `node_modules`, no `dist`), neither installed nor built. */
export async function copyExample(name: string): Promise<ScratchProject> {
  const dir = await mkdtemp(join(tmpdir(), `portcullis-example-${name}-`));
  await cp(join(EXAMPLES_DIR, name), dir, {
    recursive: true,
    filter: (source) => !['node_modules', 'dist'].includes(basename(source)),
  });
  return scratchProject(dir);
}
