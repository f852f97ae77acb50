// The rolling-upgrade suite's stack (docker/upgrade/compose.yaml): the previous release's image built from its commit,
// the new one from the working tree, every instance started on the previous one; and down again. Plain JavaScript:
// Jest loads global setup files untransformed.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { requireEngine, requirePortsFree } from '../preflight.js';
import { checkRecordedMigrations, readRelease, requireCommit, ROOT } from './release.js';

export const PROJECT = 'portcullis-upgrade-e2e';
export const COMPOSE_DIR = fileURLToPath(new URL('../../../docker/upgrade', import.meta.url));
export const INSTANCES = ['as-1', 'as-2', 'ps-1', 'ps-2', 'proxy-1', 'proxy-2'];
/** The stack's host ports (host networking): HAProxy's, the instances', PostgreSQL's and Redis's. */
export const PORTS = [4700, 4701, 4702, 4800, 4801, 4802, 4900, 4901, 4902, 5450, 6450, 8405, 9405];
/** The working tree's image, as docker/compose.yaml and docker/ha/compose.yaml build it. */
export const NEW_IMAGE = 'portcullis:dev';
/** What the global setup tells the suite (the images, the release, the build times), in the environment. */
export const STATE_VARIABLE = 'PORTCULLIS_UPGRADE_E2E';
const LOCAL_DEBIAN_IMAGE = 'portcullis-base/debian:bookworm';
const ENVIRONMENT = Symbol.for('portcullis.e2e.upgrade.compose');

const run = promisify(execFile);

function say(line) {
  process.stderr.write(`[portcullis:e2e:upgrade] ${line}\n`);
}

/** The compose variable naming one instance's image: `AS_1_IMAGE`, `PROXY_2_IMAGE`. */
export function imageVariable(instance) {
  return `${instance.toUpperCase().replace('-', '_')}_IMAGE`;
}

async function imageLabel(image, label) {
  try {
    const { stdout } = await run(
      'docker',
      ['image', 'inspect', '--format', `{{ index .Config.Labels "${label}" }}`, image],
      {
        timeout: 30_000,
      },
    );
    return stdout.trim();
  } catch {
    return undefined;
  }
}

/** Runs a command, its output to the suite's log only when it fails. */
function spawnQuietly(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    if (options.input) child.stdin.end(options.input);
    else child.stdin.end();
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`));
    });
  });
}

/** Builds one image with Compose (BuildKit where the engine has it, sharing the cache with the other stacks' builds). */
async function build(image, context, labels) {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-image-'));
  try {
    const file = join(dir, 'compose.yaml');
    await writeFile(
      file,
      JSON.stringify({
        services: {
          image: {
            image,
            build: {
              context,
              dockerfile: 'docker/Dockerfile',
              args: { NODE_IMAGE: process.env['NODE_IMAGE'] || 'node:24-bookworm-slim' },
              labels,
            },
          },
        },
      }),
    );
    await spawnQuietly('docker', ['compose', '-p', 'portcullis-upgrade-images', '-f', file, 'build'], {
      cwd: dir,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The previous release's image, from its commit's tree (`git archive`, so nothing of the working tree leaks in) and
 * that commit's docker/Dockerfile; an image already labelled with the commit is that release, and is kept.
 */
async function previousReleaseImage(release) {
  if ((await imageLabel(release.image, 'org.portcullis.release.commit')) === release.commit) {
    return { image: release.image, seconds: undefined };
  }
  const started = Date.now();
  const context = await mkdtemp(join(tmpdir(), `portcullis-${release.version}-`));
  try {
    const archive = spawn('git', ['archive', '--format=tar', release.commit], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const extract = spawn('tar', ['-x', '-C', context], { stdio: ['pipe', 'inherit', 'inherit'] });
    archive.stdout.pipe(extract.stdin);
    await Promise.all(
      [archive, extract].map(
        (child) =>
          new Promise((resolve, reject) =>
            child.once('close', (code) =>
              code === 0 ? resolve() : reject(new Error(`git archive | tar exited ${code}`)),
            ),
          ),
      ),
    );
    await build(release.image, context, {
      'org.portcullis.release.version': release.version,
      'org.portcullis.release.commit': release.commit,
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return { image: release.image, seconds: (Date.now() - started) / 1000 };
}

/** The suite's compose variables: its settings, and each instance's image (the rest comes from the environment). */
export function composeVariables(images) {
  const variables = {
    // All the suite's clients come from one address: the limits it does not test must not refuse its load.
    UPGRADE_RATE_LIMIT_TOKEN: '1000000',
    UPGRADE_RATE_LIMIT_LOGIN: '1000000',
    UPGRADE_RATE_LIMIT_REGISTER: '1000000',
    // The access tokens the load's clients got before the upgrade are used until after it.
    UPGRADE_ACCESS_TOKEN_TTL: '1800',
    UPGRADE_LOG_LEVEL: process.env['UPGRADE_LOG_LEVEL'] ?? 'warn',
  };
  for (const instance of INSTANCES) variables[imageVariable(instance)] = images[instance];
  return variables;
}

export function compose(args, images, options = {}) {
  return spawnQuietly(
    'docker',
    ['compose', '-p', PROJECT, '-f', join(COMPOSE_DIR, 'compose.yaml'), ...args],
    {
      cwd: COMPOSE_DIR,
      env: { ...process.env, ...composeVariables(images) },
      ...options,
    },
  );
}

export async function up() {
  const release = readRelease();
  requireCommit(release);
  checkRecordedMigrations(release);
  await requirePortsFree(
    'the upgrade stack',
    PORTS,
    'stop `docker compose -f docker/upgrade/compose.yaml` first',
  );
  await requireEngine('the upgrade stack');
  if (
    !process.env['DEBIAN_IMAGE'] &&
    (await imageLabel(LOCAL_DEBIAN_IMAGE, 'org.portcullis.recipe')) !== undefined
  ) {
    process.env['DEBIAN_IMAGE'] = LOCAL_DEBIAN_IMAGE;
  }

  const previous = await previousReleaseImage(release);
  say(
    previous.seconds === undefined
      ? `${previous.image}: found (built from ${release.commit})`
      : `${previous.image}: built from ${release.commit} in ${previous.seconds.toFixed(1)} s`,
  );
  const newStarted = Date.now();
  await build(NEW_IMAGE, ROOT, {});
  const newSeconds = (Date.now() - newStarted) / 1000;
  say(`${NEW_IMAGE}: built from the working tree in ${newSeconds.toFixed(1)} s`);

  const images = Object.fromEntries(INSTANCES.map((instance) => [instance, previous.image]));
  const started = Date.now();
  try {
    // The two instances of each issuer start one after the other, not together: the previous release (0.1.0) made
    // its first signing key without a lock, so two instances booting together on an empty database could each make
    // one, each signing with its own and publishing only that one until its next reload (30 s). A resource server
    // that fetched one instance's key set refused tokens of the other for as long as it kept the set: a key is
    // published before it signs, so a set fetched after a token was issued is taken to tell that its key is not the
    // issuer's (libs/resource-server/src/tokens/keys/remote-key-set.ts). This tree makes the first key under an
    // advisory lock (SigningKeyRepository.stageFirst); the suite checks each issuer starts with one key. So: as-1
    // alone; then as-2, and proxy-1 once both are ready (it needs them); then the rest.
    await compose(['up', '-d', '--build', '--wait', '--wait-timeout', '300', 'as-1'], images);
    await compose(['up', '-d', '--wait', '--wait-timeout', '300', 'as-2', 'proxy-1'], images);
    await compose(['up', '-d', '--wait', '--wait-timeout', '300'], images);
  } catch (error) {
    await keepLogs(images);
    await compose(['down', '-v', '--remove-orphans'], images).catch(() => undefined);
    throw error;
  }
  const upSeconds = (Date.now() - started) / 1000;
  say(`the stack is healthy on ${previous.image} in ${upSeconds.toFixed(1)} s (two instances of each app)`);
  globalThis[ENVIRONMENT] = images;
  process.env[STATE_VARIABLE] = JSON.stringify({
    release,
    previousImage: previous.image,
    newImage: NEW_IMAGE,
    project: PROJECT,
    composeFile: join(COMPOSE_DIR, 'compose.yaml'),
    composeVariables: composeVariables(images),
    seconds: { previousImage: previous.seconds ?? null, newImage: newSeconds, up: upSeconds },
  });
}

/** Every service's log, for whoever reads a failure after the stack is gone. */
async function keepLogs(images) {
  const logFile = join(tmpdir(), `${PROJECT}.log`);
  try {
    await writeFile(logFile, await compose(['logs', '--no-color', '--timestamps'], images));
    say(`the services' logs are in ${logFile}`);
  } catch (error) {
    say(`could not keep the services' logs: ${error.message}`);
  }
}

export async function down() {
  const images = globalThis[ENVIRONMENT];
  globalThis[ENVIRONMENT] = undefined;
  if (!images) return;
  await keepLogs(images);
  await compose(['down', '-v', '--remove-orphans', '--timeout', '15'], images);
  say('upgrade stack removed (containers and volumes)');
}
