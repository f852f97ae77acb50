import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A round-robin HTTP load balancer on loopback, for tests of several instances of one app: each request goes to the
 * next instance in rotation, whole (method, path, headers, body), and its answer comes back unchanged (redirects and
 * cookies included), as behind a real balancer. Taking an instance out of rotation before stopping it and putting it
 * back once it is ready is how a rolling restart drains it.
 */
export interface Balancer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The instances in rotation, in order. */
  readonly targets: readonly string[];
  /** How many requests each instance was sent, by its URL. */
  readonly sent: ReadonlyMap<string, number>;
  /** Requests that found no instance, or whose instance failed before answering (answered 502). */
  readonly failures: number;
  /** Puts an instance (`http://127.0.0.1:<port>`) in rotation. */
  add(target: string): void;
  /** Takes an instance out of rotation: no new request goes to it; those in flight finish. */
  remove(target: string): void;
  close(): Promise<void>;
}

/** Starts a {@link Balancer} in front of `targets`, on `port` (default: any free one). */
export async function startBalancer(targets: readonly string[] = [], port = 0): Promise<Balancer> {
  const rotation = [...targets];
  const sent = new Map<string, number>();
  let next = 0;
  let failures = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server: Server = createServer((incoming, outgoing) => {
    const target = rotation[next++ % Math.max(1, rotation.length)];
    if (target === undefined) {
      failures += 1;
      outgoing.writeHead(502).end();
      return;
    }
    sent.set(target, (sent.get(target) ?? 0) + 1);
    const url = new URL(incoming.url ?? '/', target);
    const forwarded = httpRequest(
      url,
      { method: incoming.method, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      failures += 1;
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  // Idle connections from clients are closed by the clients first (undici: after 4 s), never by the balancer as a client
  // reuses one: a slow event loop must not turn into failed requests.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get targets() {
      return [...rotation];
    },
    sent,
    get failures() {
      return failures;
    },
    add(target) {
      if (!rotation.includes(target)) rotation.push(target);
    },
    remove(target) {
      const index = rotation.indexOf(target);
      if (index >= 0) rotation.splice(index, 1);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
