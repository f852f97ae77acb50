/**
 * The calibration target: Node's own `http` server answering every request with 200 `ok`, nothing else. What the
 * load generator reaches against it is the most any scenario can show on this machine at that concurrency.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
});
// Longer than the generator's pool keeps a connection idle between windows, so no window opens connections anew.
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`trivial-http listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
