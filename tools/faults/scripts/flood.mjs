#!/usr/bin/env node
// A flood of malformed requests at one app, in a process of its own so that its work does not slow down the test
// that measures the app meanwhile: `node flood.mjs <port> <count> <concurrency> <slowloris connections>`. Written on
// raw sockets, so that nothing a client library would refuse to send is out of reach: random bytes, broken request
// lines and header fields, bodies past every limit, bodies that are not what their Content-Type says, over-long URLs
// and header sections, and slowloris connections that send one header byte a second and never finish. Prints one
// JSON line: how many were sent, and how many slowloris connections the app closed on its own.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

const text = (value) => Buffer.from(value, 'latin1');

/** The kinds of garbage, each a function of the Host header. */
const GARBAGE = [
  () => randomBytes(512),
  () => text(`GET / HTTP/1.1\r\n${randomBytes(64).toString('latin1')}\r\n\r\n`),
  (host) => text(`GET /authorize?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
  (host) => text(`GET /%zz%00 HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
  (host) => text(`POST /token HTTP/1.1\r\nHost: ${host}\r\nContent-Length: abc\r\n\r\n`),
  (host) => text(`POST /token HTTP/1.1\r\nHost: ${host}\r\nX-Bad: a\x00b\r\n\r\n`),
  (host) =>
    Buffer.concat([
      text(
        `POST /token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200000\r\n\r\n`,
      ),
      Buffer.alloc(200_000, 'a'),
    ]),
  (host) => {
    const body = '{"redirect_uris": [' + '"x",'.repeat(2_000);
    return text(
      `POST /register HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  },
  (host) => {
    const body = randomBytes(300).toString('latin1');
    return text(
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${'x'.repeat(5_000)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  },
  (host) =>
    text(
      `POST /token HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\nnot a chunk\r\n`,
    ),
  (host) =>
    text(
      `GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: ${host}\r\n${'X-A: b\r\n'.repeat(500)}\r\n`,
    ),
];

/** Writes `bytes` on a new connection to `port`, reads whatever comes back, and closes; never throws. */
function send(port, bytes) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.setTimeout(5_000, done);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', () => socket.end());
    socket.on('connect', () => socket.end(bytes));
  });
}

/** Sends `count` malformed requests to `port`, `concurrency` at a time, cycling through {@link GARBAGE}. */
async function flood(port, count, concurrency) {
  let next = 0;
  const host = `127.0.0.1:${port}`;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      await send(port, GARBAGE[index % GARBAGE.length](host));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Opens `count` slowloris connections to `port`: each sends the start of a request and then one header byte a second,
 * never finishing. Returns a function that closes them and says how many the server had closed on its own.
 */
function slowloris(port, count) {
  const sockets = [];
  let closedByServer = 0;
  let stopping = false;
  for (let i = 0; i < count; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!stopping) closedByServer += 1;
    });
    socket.on('connect', () => socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `));
    sockets.push(socket);
  }
  const drip = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write('a');
  }, 1_000);
  return () => {
    stopping = true;
    clearInterval(drip);
    for (const socket of sockets) socket.destroy();
    return closedByServer;
  };
}

const [port, count, concurrency, slow] = process.argv.slice(2).map(Number);
const stopSlowloris = slowloris(port, slow);
const started = Date.now();
await flood(port, count, concurrency);
const closedByServer = stopSlowloris();
process.stdout.write(
  `${JSON.stringify({ sent: count, ms: Date.now() - started, slowlorisClosedByServer: closedByServer })}\n`,
);
