import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on loopback in front of a dependency (PostgreSQL, Redis), for fault tests of the apps without
 * containers: `down()` drops every connection through it and refuses new ones, as a stopped server does (the
 * client sees its connections reset and then `ECONNREFUSED`); `up()` lets connections through again, on the same
 * port, as a restarted server does.
 */
export interface FaultProxy {
  /** The loopback port the proxy listens on. */
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** Whether connections go through now. */
  readonly isUp: boolean;
  /** Drops every open connection and refuses new ones. */
  down(): Promise<void>;
  /**
   * Keeps every connection open but forwards nothing, either way, and lets new connections in to the same silence:
   * a server that hangs, or a network that drops packets.
   */
  stall(): void;
  /** Accepts connections again (on the same port), or ends a stall (its silent connections are dropped). */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a {@link FaultProxy} to `target` (`host:port`), up. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const open = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer((client) => {
        track(client);
        if (stalled) return;
        const upstream = connect(target.port, target.host);
        track(upstream);
        client.on('data', (chunk: Buffer) => {
          if (!stalled) upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
          if (!stalled) client.write(chunk);
        });
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  let server: Server | undefined = await open(0);
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    via(url: string) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.href;
    },
    get isUp() {
      return server !== undefined;
    },
    down: stop,
    stall() {
      stalled = true;
    },
    async up() {
      if (stalled) {
        stalled = false;
        for (const socket of sockets) socket.destroy();
      }
      if (server) return;
      // The port was ours a moment ago; another process taking it in between would fail the test loudly.
      server = await open(port);
    },
    close: stop,
  };
}
