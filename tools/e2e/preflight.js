// What every stack of the e2e suites checks before it starts (tools/e2e/{stack,ha,upgrade}): its host ports are free
// and, for stacks driven with the docker CLI, a container engine answers. Plain JavaScript: Jest loads global setup
// files untransformed.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Fails, naming the ports in use and `remedy`, unless every one of `ports` is free on 127.0.0.1. */
export async function requirePortsFree(stack, ports, remedy) {
  const taken = [];
  for (const port of ports) if (!(await portFree(port))) taken.push(port);
  if (taken.length > 0) {
    throw new Error(
      `${stack} needs ports ${ports.join(', ')} on 127.0.0.1, but ${taken.join(', ')} ${taken.length === 1 ? 'is' : 'are'} in use ` +
        `(${remedy})`,
    );
  }
}

/** Fails, saying how to get one, unless `docker info` answers. */
export async function requireEngine(stack) {
  try {
    await promisify(execFile)('docker', ['info'], { timeout: 30_000 });
  } catch (error) {
    throw new Error(
      `${stack} needs a container engine and none answers (${error.message.split('\n')[0]}); ` +
        'start Docker, or on a machine without one: eval "$(tools/containers/provision.sh)"',
    );
  }
}
