// Brings docker/compose.yaml up with Testcontainers' DockerComposeEnvironment for the stack suite, and down again.
// Plain JavaScript: Jest loads global setup files untransformed.
import { fileURLToPath } from 'node:url';
import { requirePortsFree } from '../preflight.js';

export const PROJECT = 'portcullis-e2e';
export const COMPOSE_DIR = fileURLToPath(new URL('../../../docker', import.meta.url));
export const SERVICES = [
  'postgres',
  'redis',
  'authorization-server',
  'protected-server',
  'proxy',
  'enterprise-idp',
];
/** The stack's host ports (host networking): PostgreSQL, Redis and the four apps. */
export const PORTS = [5433, 6380, 4000, 4100, 4200, 4300];

const ENVIRONMENT = Symbol.for('portcullis.e2e.compose');

function say(line) {
  process.stderr.write(`[portcullis:e2e:stack] ${line}\n`);
}

export async function up() {
  await requirePortsFree('the compose stack', PORTS, 'stop `npm start` or another `docker compose up` first');
  const { DockerComposeEnvironment, Wait, getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      `the compose stack needs a container engine and none answers (${error.message}); ` +
        'start Docker, or on a machine without one: eval "$(tools/containers/provision.sh)"',
    );
  }
  const started = Date.now();
  let environment = new DockerComposeEnvironment(COMPOSE_DIR, 'compose.yaml')
    .withProjectName(PROJECT)
    .withBuild()
    .withStartupTimeout(300_000);
  for (const service of SERVICES)
    environment = environment.withWaitStrategy(`${service}-1`, Wait.forHealthCheck());
  const running = await environment.up();
  globalThis[ENVIRONMENT] = running;
  say(`compose stack healthy in ${((Date.now() - started) / 1000).toFixed(1)} s: ${SERVICES.join(', ')}`);
}

export async function down() {
  const running = globalThis[ENVIRONMENT];
  globalThis[ENVIRONMENT] = undefined;
  if (!running) return;
  await running.down({ removeVolumes: true, timeout: 20_000 });
  say('compose stack removed (containers and volumes)');
}
