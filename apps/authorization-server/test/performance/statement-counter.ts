// A TCP relay on loopback in front of PostgreSQL that reads what the client sends (the frontend side of the
// PostgreSQL protocol 3.0, https://www.postgresql.org/docs/15/protocol-message-formats.html) and counts the
// statements the server is asked to run: each simple Query ('Q') and each Execute ('E') of the extended protocol.
// A Parse alone runs nothing, and a statement prepared once and executed twice runs twice, so Execute is what
// counts; a Query is one statement as long as it holds no `;` (it never does here, and `texts` shows it).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** The frontend messages sent so far, as statements. */
export interface StatementCounter {
  /** `url` with its host and port replaced by the relay's. */
  via(url: string): string;
  /** Statements run since the last {@link reset}. */
  readonly statements: number;
  /** Round trips since the last {@link reset}: a simple Query, or a Sync closing a batch of extended messages. */
  readonly roundTrips: number;
  /** The SQL of every statement since the last {@link reset}, in order (a Parse's text for each Execute). */
  readonly texts: readonly string[];
  reset(): void;
  close(): Promise<void>;
}

// Startup-phase request codes (untyped messages): SSLRequest and GSSENCRequest are answered with one byte and
// followed by another untyped message; the StartupMessage (protocol 3.0) ends the untyped phase.
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Starts a counting relay to `target` (`host:port`). */
export async function startStatementCounter(target: {
  host: string;
  port: number;
}): Promise<StatementCounter> {
  let statements = 0;
  let roundTrips = 0;
  let texts: string[] = [];
  const sockets = new Set<Socket>();

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };

  const server: Server = createServer((client) => {
    track(client);
    const upstream = connect(target.port, target.host);
    track(upstream);
    let pending: Buffer = Buffer.alloc(0);
    let startup = true;
    // The text of the last unnamed Parse, and of named ones by name, for the statement an Execute runs.
    const prepared = new Map<string, string>();
    const portals = new Map<string, string>();

    const read = (message: Buffer, type: number) => {
      switch (type) {
        case 0x51: {
          // 'Q': a query string, NUL-terminated.
          statements += 1;
          roundTrips += 1;
          texts.push(cString(message, 0).value);
          break;
        }
        case 0x50: {
          // 'P': statement name, query text, parameter types.
          const name = cString(message, 0);
          prepared.set(name.value, cString(message, name.next).value);
          break;
        }
        case 0x42: {
          // 'B': portal name, statement name, ...
          const portal = cString(message, 0);
          const statement = cString(message, portal.next);
          portals.set(portal.value, prepared.get(statement.value) ?? `<prepared ${statement.value}>`);
          break;
        }
        case 0x45: {
          // 'E': portal name, row limit.
          statements += 1;
          texts.push(portals.get(cString(message, 0).value) ?? '<unknown portal>');
          break;
        }
        case 0x53:
          // 'S': Sync, the end of an extended-protocol batch the server answers.
          roundTrips += 1;
          break;
      }
    };

    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          startup = code === SSL_REQUEST || code === GSSENC_REQUEST;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        read(pending.subarray(5, 1 + length), pending[0]!);
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    via(url: string) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.href;
    },
    get statements() {
      return statements;
    },
    get roundTrips() {
      return roundTrips;
    },
    get texts() {
      return texts;
    },
    reset() {
      statements = 0;
      roundTrips = 0;
      texts = [];
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function cString(buffer: Buffer, start: number): { value: string; next: number } {
  const end = buffer.indexOf(0, start);
  const stop = end === -1 ? buffer.length : end;
  return { value: buffer.toString('utf8', start, stop), next: stop + 1 };
}
