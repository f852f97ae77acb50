import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** The lowest port {@link freePort} hands out: above the registered ports local services usually listen on. */
const LOWEST_PORT = 20_000;
/**
 * Where the dynamic (ephemeral) ports start on systems that follow IANA (macOS, Windows).
 * @see {@link https://www.rfc-editor.org/rfc/rfc6335#section-6 RFC 6335 Section 6}
 */
const IANA_DYNAMIC_PORTS = 49_152;
/** Below this many ports between {@link LOWEST_PORT} and the ephemeral range, the system picks the port itself. */
const ENOUGH_PORTS = 1_000;

const handedOut = new Set<number>();
let ephemeralStart: Promise<number> | undefined;

/**
 * A loopback port nothing listens on right now, for an app that must know its URL before it starts.
 *
 * The port stays unbound until the app listens, and a port the system hands out for port 0 could be taken in the
 * meantime by anything on the machine: another test process's listen on port 0, the source port of any outgoing
 * connection, a container engine publishing a port. So the port is picked at random below the system's ephemeral
 * range, where the system gives nothing out by itself; only another caller of this function could choose it too, and
 * one process never hands out a port twice.
 */
export async function freePort(): Promise<number> {
  const below = await (ephemeralStart ??= ephemeralPortsStart());
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = below - LOWEST_PORT >= ENOUGH_PORTS ? randomInt(LOWEST_PORT, below) : await systemPort();
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no free loopback port that this process has not handed out already');
}

/** The first port of the range the system takes ephemeral ports from (Linux says; others are assumed IANA's). */
async function ephemeralPortsStart(): Promise<number> {
  try {
    const [low] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/u);
    const port = Number(low);
    return Number.isInteger(port) && port > 0 ? port : IANA_DYNAMIC_PORTS;
  } catch {
    return IANA_DYNAMIC_PORTS;
  }
}

/** Whether a listener could bind `port` on loopback now (Windows refuses excluded ports with EACCES). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port the system chooses for a listen on port 0, released again. */
function systemPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
