// The local npm registry of a packages e2e run: Verdaccio with the repository's configuration (.verdaccio/config.yml:
// the @portcullis scope served only from its own storage, every other package proxied from the public registry), on
// a free loopback port with a storage folder of its own under the system's temporary directory; then every
// `scope:published` lib published to it by `nx release publish`, as a release publishes them (their package.json
// versions as they are: nothing is versioned, committed or tagged). The test workers find its URL in
// PORTCULLIS_E2E_REGISTRY.
// Plain JavaScript: Jest loads global setup files untransformed.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REGISTRY_ENV = 'PORTCULLIS_E2E_REGISTRY';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STATE = Symbol.for('portcullis.e2e-packages.registry');
/**
 * Verdaccio accepts any token for the @portcullis scope (`publish: $all`); npm publish wants one all the same. It goes
 * in an npm user configuration of the run's own (an environment variable cannot carry it: its name would hold `/`
 * and `:`, which the shell nx publishes through drops).
 */
const TOKEN = 'portcullis-e2e-packages';

function say(line) {
  process.stderr.write(`[portcullis:e2e-packages] ${line}\n`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The environment of a child npm or nx: this one without what an enclosing `npm test` set for its own project. */
export function cleanEnv(extra = {}) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
  return { ...env, ...extra };
}

/** Runs a command to its end; rejects with its output when it fails. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.slice(-8000)}`)),
    );
  });
}

/** The names of the libs tagged `scope:published`, from their project.json and package.json. */
async function publishedPackages() {
  const names = [];
  for (const lib of await readdir(join(ROOT, 'libs'))) {
    const project = await readFile(join(ROOT, 'libs', lib, 'project.json'), 'utf8').catch(() => undefined);
    if (project === undefined || !JSON.parse(project).tags?.includes('scope:published')) continue;
    const manifest = JSON.parse(await readFile(join(ROOT, 'libs', lib, 'package.json'), 'utf8'));
    names.push(`${manifest.name}@${manifest.version}`);
  }
  return names.sort();
}

async function waitForRegistry(url, verdaccio) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (verdaccio.exitCode !== null)
      throw new Error(`Verdaccio exited (${verdaccio.exitCode}): ${verdaccio.log()}`);
    const answered = await fetch(`${url}/-/ping`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Verdaccio did not answer at ${url} within 60 s: ${verdaccio.log()}`);
}

function startVerdaccio(configPath, port) {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules/verdaccio/bin/verdaccio'),
      '--config',
      configPath,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keep = (chunk) => (log = (log + chunk).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.log = () => log;
  return child;
}

/** Starts the registry and publishes every `scope:published` package to it. */
export async function startLocalRegistry() {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-registry-'));
  const config = (await readFile(join(ROOT, '.verdaccio/config.yml'), 'utf8')).replace(
    /^storage:.*$/m,
    `storage: ${JSON.stringify(join(dir, 'storage'))}`,
  );
  const configPath = join(dir, 'config.yml');
  await writeFile(configPath, config);
  const npmrc = join(dir, 'npmrc');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const verdaccio = startVerdaccio(configPath, port);
  globalThis[STATE] = { verdaccio, dir };
  try {
    await waitForRegistry(url, verdaccio);
    const packages = await publishedPackages();
    await writeFile(npmrc, `//127.0.0.1:${port}/:_authToken=${TOKEN}\n`);
    await run(
      process.execPath,
      [
        join(ROOT, 'node_modules/nx/dist/bin/nx.js'),
        'release',
        'publish',
        '--registry',
        url,
        '--output-style',
        'static',
      ],
      {
        cwd: ROOT,
        env: cleanEnv({
          NX_DAEMON: 'false',
          NX_NO_CLOUD: 'true',
          NX_TUI: 'false',
          npm_config_userconfig: npmrc,
        }),
      },
    );
    // Every package a release publishes is there, at the version its package.json names.
    for (const spec of packages) {
      const name = spec.slice(0, spec.lastIndexOf('@'));
      const version = spec.slice(spec.lastIndexOf('@') + 1);
      const response = await fetch(`${url}/${name.replace('/', '%2f')}`);
      const document = response.ok ? await response.json() : {};
      if (!document.versions?.[version])
        throw new Error(`nx release publish did not publish ${spec} to ${url}`);
    }
    process.env[REGISTRY_ENV] = url;
    say(
      `registry: Verdaccio at ${url}, ${packages.length} packages published in ${((Date.now() - started) / 1000).toFixed(1)} s (${packages.join(', ')})`,
    );
  } catch (error) {
    await stopLocalRegistry();
    throw error;
  }
}

/** Stops the registry and removes its storage. */
export async function stopLocalRegistry() {
  const state = globalThis[STATE];
  globalThis[STATE] = undefined;
  delete process.env[REGISTRY_ENV];
  if (!state) return;
  if (state.verdaccio.exitCode === null) {
    const exited = new Promise((resolve) => state.verdaccio.once('exit', resolve));
    state.verdaccio.kill('SIGTERM');
    const killer = setTimeout(() => state.verdaccio.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
  await rm(state.dir, { recursive: true, force: true });
}
