import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { freePort } from './free-port.js';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

const ephemeralStart = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/u)[0]);
  } catch {
    return 49_152;
  }
})();

describe('freePort', () => {
  it('hands out a port below the ephemeral range, so listens on port 0 elsewhere never take it first', async () => {
    const port = await freePort();
    expect(port).toBeLessThan(ephemeralStart);
    const others = await Promise.all(Array.from({ length: 100 }, () => listen(0)));
    try {
      expect(others.map((server) => (server.address() as AddressInfo).port)).not.toContain(port);
      const server = await listen(port);
      expect((server.address() as AddressInfo).port).toBe(port);
      await close(server);
    } finally {
      await Promise.all(others.map(close));
    }
  });

  it('never hands out the same port twice in one process', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
  });

  it('hands out ports nothing listens on', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    const servers = await Promise.all(ports.map(listen));
    expect(servers.map((server) => (server.address() as AddressInfo).port)).toEqual(ports);
    await Promise.all(servers.map(close));
  });
});
