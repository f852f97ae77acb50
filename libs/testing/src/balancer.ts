import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
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
  /**
   * The answers of the next `count` requests that `match` (method and path) are lost: each is carried out by its
   * instance, whose answer is read and thrown away, and sent whole to the next instance in rotation, whose answer the
   * client gets. What HAProxy's `retry-on empty-response` with `option redispatch` does when an instance dies after
   * carrying out a request (its transaction committed) but before answering it.
   */
  loseAnswers(match: (method: string, path: string) => boolean, count?: number): void;
  /** Requests whose first answer {@link loseAnswers} threw away, by method and path. */
  readonly answersLost: readonly string[];
  close(): Promise<void>;
}

/** Starts a {@link Balancer} in front of `targets`, on `port` (default: any free one). */
export async function startBalancer(targets: readonly string[] = [], port = 0): Promise<Balancer> {
  const rotation = [...targets];
  const sent = new Map<string, number>();
  let next = 0;
  let failures = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const losing: { match: (method: string, path: string) => boolean; left: number }[] = [];
  const answersLost: string[] = [];
  const nextTarget = () => rotation[next++ % Math.max(1, rotation.length)];
  /** `incoming` (method, path, headers) sent to `target`, counted; its answer handed to `onAnswer`. */
  const forward = (
    target: string,
    incoming: IncomingMessage,
    onAnswer: (answer: IncomingMessage) => void,
  ) => {
    sent.set(target, (sent.get(target) ?? 0) + 1);
    return httpRequest(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: incoming.headers, agent },
      onAnswer,
    );
  };
  /** `incoming` sent to `target` with `body`, its answer read whole and thrown away. */
  const carriedOut = (target: string, incoming: IncomingMessage, body: Buffer) =>
    new Promise<void>((resolve) => {
      const forwarded = forward(target, incoming, (answer) => {
        answer.resume();
        answer.on('end', resolve);
        answer.on('error', () => resolve());
      });
      forwarded.on('error', () => resolve());
      forwarded.end(body);
    });
  /** The request to `target` whose answer goes back to the client unchanged. */
  const relay = (target: string, incoming: IncomingMessage, outgoing: ServerResponse) => {
    const forwarded = forward(target, incoming, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => {
      failures += 1;
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    return forwarded;
  };
  const server: Server = createServer((incoming, outgoing) => {
    const method = incoming.method ?? 'GET';
    const path = new URL(incoming.url ?? '/', 'http://balancer').pathname;
    const lose = losing.find((rule) => rule.left > 0 && rule.match(method, path));
    const first = nextTarget();
    if (first === undefined) {
      failures += 1;
      outgoing.writeHead(502).end();
      return;
    }
    if (lose && rotation.length > 1) {
      lose.left -= 1;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks);
        void carriedOut(first, incoming, body).then(() => {
          answersLost.push(`${method} ${path}`);
          const target = rotation.find((candidate) => candidate !== first) ?? first;
          relay(target, incoming, outgoing).end(body);
        });
      });
      return;
    }
    incoming.pipe(relay(first, incoming, outgoing));
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
    loseAnswers(match, count = 1) {
      losing.push({ match, left: count });
    },
    answersLost,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
