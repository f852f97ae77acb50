// Brings docker/ha/compose.yaml up with Docker Compose for the HA fault suite (every service healthy), and down
// again. Plain JavaScript: Jest loads global setup files untransformed.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { requireEngine, requirePortsFree } from '../preflight.js';

export const PROJECT = 'portcullis-ha-e2e';
export const COMPOSE_DIR = fileURLToPath(new URL('../../../docker/ha', import.meta.url));
export const SERVICES = [
  'etcd-1',
  'etcd-2',
  'etcd-3',
  'pg-1',
  'pg-2',
  'haproxy',
  'redis-1',
  'redis-2',
  'sentinel-1',
  'sentinel-2',
  'sentinel-3',
  'as-1',
  'as-2',
  'ps-1',
  'ps-2',
  'proxy-1',
  'proxy-2',
];
/** The stack's host ports (host networking). */
export const PORTS = [
  2441, 2442, 2443, 2451, 2452, 2453, 5440, 5441, 5442, 8441, 8442, 8404, 6441, 6442, 26441, 26442, 26443,
  4400, 4401, 4402, 4500, 4501, 4502, 4600, 4601, 4602,
];
/** The local stand-in for a Debian bookworm image that tools/containers/provision.sh builds without a registry. */
const LOCAL_DEBIAN_IMAGE = 'portcullis-base/debian:bookworm';

const ENVIRONMENT = Symbol.for('portcullis.e2e.ha.compose');
const run = promisify(execFile);

function say(line) {
  process.stderr.write(`[portcullis:e2e:ha] ${line}\n`);
}

async function imagePresent(image) {
  try {
    await run('docker', ['image', 'inspect', image], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

export async function up() {
  await requirePortsFree('the HA stack', PORTS, 'stop `docker compose -f docker/ha/compose.yaml` first');
  await requireEngine('the HA stack');
  const environment = {
    // All the suite's clients come from one address: the limits it does not test must not refuse its load.
    HA_RATE_LIMIT_TOKEN: '1000000',
    HA_RATE_LIMIT_LOGIN: '1000000',
    HA_LOG_LEVEL: process.env['HA_LOG_LEVEL'] ?? 'warn',
  };
  if (!process.env['DEBIAN_IMAGE'] && (await imagePresent(LOCAL_DEBIAN_IMAGE))) {
    environment.DEBIAN_IMAGE = LOCAL_DEBIAN_IMAGE;
  }
  const started = Date.now();
  try {
    // Compose starts each service once those it depends on are healthy; then every service must be healthy.
    await run(
      'docker',
      ['compose', '-p', PROJECT, '-f', 'compose.yaml', 'up', '-d', '--build', '--quiet-pull'],
      {
        cwd: COMPOSE_DIR,
        env: { ...process.env, ...environment },
        timeout: 900_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    await allHealthy(600_000);
    // Healthy to Docker is each instance answering its own check; the suite reaches them through HAProxy, whose
    // checks put them in rotation on their own schedule: wait for that too.
    await inRotation(120_000);
  } catch (error) {
    // Every service's state and log, before what did start goes (its volumes with it).
    const found = await states().catch(() => new Map());
    say(`services: ${[...found].map(([service, state]) => `${service} ${state}`).join(', ') || 'none'}`);
    await keepLogs();
    await run('docker', ['compose', '-p', PROJECT, 'down', '-v', '--remove-orphans'], {
      cwd: COMPOSE_DIR,
      timeout: 120_000,
    }).catch(() => undefined);
    throw error;
  }
  globalThis[ENVIRONMENT] = true;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  say(`HA stack healthy in ${seconds} s (images built or found, ${SERVICES.length} services)`);
}

/** Each service's health (`healthy`, `starting`, `unhealthy`) or state when it has none (`exited`...). */
async function states() {
  const { stdout } = await run(
    'docker',
    ['compose', '-p', PROJECT, 'ps', '-a', '--format', '{{.Service}}\t{{.State}}\t{{.Health}}'],
    { cwd: COMPOSE_DIR, timeout: 60_000 },
  );
  const found = new Map();
  for (const line of stdout.split('\n')) {
    const [service, state, health] = line.split('\t');
    if (service) found.set(service, state === 'running' && health ? health : state);
  }
  return found;
}

/** How many times the engine restarted each service's container. */
async function restartCounts() {
  const { stdout: ids } = await run('docker', ['compose', '-p', PROJECT, 'ps', '-a', '-q'], {
    cwd: COMPOSE_DIR,
    timeout: 60_000,
  });
  const containers = ids.split('\n').filter(Boolean);
  const counts = new Map();
  if (containers.length === 0) return counts;
  const { stdout } = await run(
    'docker',
    [
      'inspect',
      '--format',
      '{{index .Config.Labels "com.docker.compose.service"}} {{.RestartCount}}',
      ...containers,
    ],
    { timeout: 60_000 },
  );
  for (const line of stdout.split('\n')) {
    const [service, count] = line.split(' ');
    if (service) counts.set(service, Number(count));
  }
  return counts;
}

/**
 * Waits until every service is healthy. A service reported unhealthy on the way is waited for too (Docker's verdict
 * after a run of failed checks, which on a 2-core machine booting six Node processes can be a check that timed out,
 * not a service that failed) and named when it recovers; one that exited or was restarted five times (its process
 * crashed), or anything not healthy by `timeoutMs`, fails the start.
 */
async function allHealthy(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const wasUnhealthy = new Set();
  let psFailures = 0;
  for (;;) {
    let found;
    try {
      found = await states();
      psFailures = 0;
    } catch (error) {
      // One `docker compose ps` that failed (the engine busy) is not the stack's failure; several in a row are.
      if (++psFailures >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      continue;
    }
    for (const [service, state] of found) if (state === 'unhealthy') wasUnhealthy.add(service);
    const exited = SERVICES.filter((service) => ['exited', 'dead'].includes(found.get(service) ?? ''));
    if (exited.length > 0) throw new Error(`the HA stack did not start: ${exited.join(', ')} exited`);
    // `restart: unless-stopped` brings a crashing service back, so it never shows as exited: count its restarts.
    const crashing = [...(await restartCounts().catch(() => new Map()))]
      .filter(([, count]) => count >= 5)
      .map(([service, count]) => `${service} (${count} restarts)`);
    if (crashing.length > 0) throw new Error(`the HA stack did not start: ${crashing.join(', ')}`);
    const waiting = SERVICES.filter((service) => found.get(service) !== 'healthy');
    if (waiting.length === 0) {
      if (wasUnhealthy.size > 0)
        say(`reported unhealthy on the way, then healthy: ${[...wasUnhealthy].join(', ')}`);
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `the HA stack was not healthy within ${timeoutMs / 1000} s: ${waiting.map((service) => `${service} ${found.get(service) ?? 'missing'}`).join(', ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

/** The servers HAProxy must have in rotation before the suite starts: every app instance, and one PostgreSQL. */
const BALANCED = ['as-1', 'as-2', 'ps-1', 'ps-2', 'proxy-1', 'proxy-2'];

/** HAProxy's state of each server (`UP`, `DOWN`, `UP 1/2`...), by name, from its statistics CSV. */
async function haproxyStates() {
  const response = await fetch('http://127.0.0.1:8404/;csv', { signal: AbortSignal.timeout(2_000) });
  const found = new Map();
  // Columns: pxname, svname, ..., status (17).
  for (const line of (await response.text()).split('\n').slice(1)) {
    const fields = line.split(',');
    if (fields[1] && fields[1] !== 'FRONTEND' && fields[1] !== 'BACKEND')
      found.set(fields[1], fields[17] ?? '');
  }
  return found;
}

/** Waits until HAProxy has every app instance and a PostgreSQL primary in rotation; names what is not, past `timeoutMs`. */
async function inRotation(timeoutMs) {
  const started = Date.now();
  let found = new Map();
  for (;;) {
    found = await haproxyStates().catch(() => new Map());
    const waiting = BALANCED.filter((server) => found.get(server) !== 'UP');
    const primary = ['pg-1', 'pg-2'].some((server) => found.get(server) === 'UP');
    if (waiting.length === 0 && primary) {
      say(
        `HAProxy has every instance in rotation (${((Date.now() - started) / 1000).toFixed(1)} s after healthy)`,
      );
      return;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `HAProxy did not put every instance in rotation within ${timeoutMs / 1000} s: ${[...found].map(([server, state]) => `${server} ${state}`).join(', ') || 'no statistics'}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Every service's log, for whoever reads a failure after the stack is gone. */
async function keepLogs() {
  const logFile = join(tmpdir(), `${PROJECT}.log`);
  try {
    const { stdout } = await run('docker', ['compose', '-p', PROJECT, 'logs', '--no-color', '--timestamps'], {
      cwd: COMPOSE_DIR,
      maxBuffer: 256 * 1024 * 1024,
      timeout: 60_000,
    });
    await writeFile(logFile, stdout);
    say(`the services' logs are in ${logFile}`);
  } catch (error) {
    say(`could not keep the services' logs: ${error.message}`);
  }
}

export async function down() {
  const running = globalThis[ENVIRONMENT];
  globalThis[ENVIRONMENT] = undefined;
  if (!running) return;
  await keepLogs();
  await run('docker', ['compose', '-p', PROJECT, 'down', '-v', '--remove-orphans', '--timeout', '30'], {
    cwd: COMPOSE_DIR,
    timeout: 180_000,
  });
  say('HA stack removed (containers and volumes)');
}
