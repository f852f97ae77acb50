import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP listener on loopback that must never be reached: it counts connections and bytes, and answers nothing. */
export interface LoopbackCanary {
  readonly port: number;
  readonly connections: number;
  readonly bytes: number;
  /** Whether it listens on ::1 too (IPv6 may be off on the machine). */
  readonly ipv6: boolean;
  close(): Promise<void>;
}

/** Starts a canary on 127.0.0.1 and, with the same port, on ::1 when the machine has IPv6 loopback. */
export async function startLoopbackCanary(): Promise<LoopbackCanary> {
  let connections = 0;
  let bytes = 0;
  const sockets = new Set<Socket>();
  const make = () =>
    createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('data', (data) => {
        bytes += data.length;
      });
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
  const listen = (server: Server, port: number, host: string) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  const v4 = make();
  await listen(v4, 0, '127.0.0.1');
  const { port } = v4.address() as AddressInfo;
  const v6 = make();
  const ipv6 = await listen(v6, port, '::1').then(
    () => true,
    () => false,
  );
  const servers = ipv6 ? [v4, v6] : [v4];
  return {
    port,
    ipv6,
    get connections() {
      return connections;
    },
    get bytes() {
      return bytes;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      );
    },
  };
}
