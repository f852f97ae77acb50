// One PostgreSQL and one Redis container for a whole Jest run (a project's test run), started by the global setup
// and removed by the global teardown; `startDatabase()` gives each test file a fresh database on that server.
//
// Which backing services a run gets, in order:
// - TEST_DATABASE_URL / TEST_REDIS_URL: an explicit server; no container for that service.
// - a container engine that answers (DOCKER_HOST or the default socket): Testcontainers, with the images named by
//   TEST_POSTGRES_IMAGE (default postgres:16-alpine) and TEST_REDIS_IMAGE (default redis:7-alpine).
// - neither: no container; the tests use embedded PGlite and skip what needs Redis.
// PORTCULLIS_TEST_CONTAINERS=required makes a missing engine an error (CI sets it), =off never asks for one.
//
// Plain JavaScript: Jest loads global setup files outside its module registry, untransformed.

const POSTGRES_URL = 'PORTCULLIS_TESTCONTAINERS_POSTGRES_URL';
const REDIS_URL = 'PORTCULLIS_TESTCONTAINERS_REDIS_URL';
const STARTED = Symbol.for('portcullis.testing.containers');

function say(line) {
  process.stderr.write(`[portcullis:testing] ${line}\n`);
}

async function engineAnswers() {
  const mode = process.env['PORTCULLIS_TEST_CONTAINERS'] ?? 'auto';
  if (mode === 'off' || process.env['TESTCONTAINERS_DISABLED'] === 'true') return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([
      getContainerRuntimeClient(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('no answer within 10 s')), 10_000).unref(),
      ),
    ]);
    return true;
  } catch (error) {
    if (mode === 'required') {
      throw new Error(
        `PORTCULLIS_TEST_CONTAINERS=required but no container engine answers: ${error.message}`,
      );
    }
    return false;
  }
}

async function startPostgres() {
  const image = process.env['TEST_POSTGRES_IMAGE'] || 'postgres:16-alpine';
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const started = Date.now();
  // No fsync, at initdb or after: a test database is thrown away, and durability costs most of its set-up time.
  const container = await new PostgreSqlContainer(image)
    .withCommand([
      'postgres',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ])
    .withEnvironment({ POSTGRES_INITDB_ARGS: '--no-sync' })
    // The module's own health check runs pg_isready every 250 ms with a 1 s timeout for the container's whole life:
    // four `docker exec`s a second per container load a small CI machine, and one killed at its timeout mid-handshake
    // has crashed the server (a backend terminated by SIGPIPE, then the whole cluster reset into recovery). One check
    // a second, with time to answer, is as good a readiness signal.
    .withHealthCheck({
      test: [
        'CMD-SHELL',
        'PGPASSWORD="$POSTGRES_PASSWORD" pg_isready --host localhost --username "$POSTGRES_USER"',
      ],
      interval: 1000,
      timeout: 10_000,
      retries: 120,
    })
    .withLabels({ 'org.portcullis.test': 'true' })
    .start();
  say(
    `containers: PostgreSQL ${image} at ${container.getHost()}:${container.getPort()} (ready in ${Date.now() - started} ms)`,
  );
  return { container, url: container.getConnectionUri() };
}

async function startRedis() {
  const image = process.env['TEST_REDIS_IMAGE'] || 'redis:7-alpine';
  const { RedisContainer } = await import('@testcontainers/redis');
  const started = Date.now();
  const container = await new RedisContainer(image).withLabels({ 'org.portcullis.test': 'true' }).start();
  say(
    `containers: Redis ${image} at ${container.getHost()}:${container.getPort()} (ready in ${Date.now() - started} ms)`,
  );
  return { container, url: container.getConnectionUrl() };
}

/** Jest global setup: the run's containers, their URLs in the environment the test workers inherit. */
export async function setup() {
  const wantPostgres = !process.env['TEST_DATABASE_URL'];
  const wantRedis = !process.env['TEST_REDIS_URL'];
  if (!wantPostgres && !wantRedis) {
    say('containers: none needed (TEST_DATABASE_URL and TEST_REDIS_URL are set)');
    return;
  }
  if (!(await engineAnswers())) {
    say('containers: no container engine answers; embedded PGlite, and tests that need Redis skip');
    return;
  }
  const started = [];
  globalThis[STARTED] = started;
  const [postgres, redis] = await Promise.allSettled([
    wantPostgres ? startPostgres() : Promise.resolve(undefined),
    wantRedis ? startRedis() : Promise.resolve(undefined),
  ]);
  for (const outcome of [postgres, redis]) {
    if (outcome.status === 'fulfilled' && outcome.value) started.push(outcome.value.container);
  }
  const failed = [postgres, redis].find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  if (postgres.value) process.env[POSTGRES_URL] = postgres.value.url;
  if (redis.value) process.env[REDIS_URL] = redis.value.url;
}

/** Jest global teardown: removes what the setup started (Ryuk, the reaper, may be off). */
export async function teardown() {
  const started = globalThis[STARTED] ?? [];
  globalThis[STARTED] = [];
  await Promise.allSettled(started.map((container) => container.stop({ remove: true, removeVolumes: true })));
  delete process.env[POSTGRES_URL];
  delete process.env[REDIS_URL];
}
