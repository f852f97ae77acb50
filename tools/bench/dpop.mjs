// DPoP versus Bearer at the protected server: requests per second and latency of one protected request, presented
// once as `Bearer <token>` and once as `DPoP <token>` with a fresh proof per request (RFC 9449 Section 7.1).
//
// It starts an in-process token issuer (RFC 8414 metadata and a JWK set the server trusts), then the built protected
// server (apps/protected-server/dist/main.js) with EXTENSIONS=dpop on a temporary embedded database (or
// --database-url / BENCH_DATABASE_URL: an existing PostgreSQL database; the embedded one is slow enough to hide the
// cost of authentication), and drives it with keep-alive connections from undici. Every DPoP proof is signed before the
// timed window, so the client's signing is not measured; the window ends early if the proofs run out.
//
//   npm run bench -- dpop [--quick] [--route notes|mcp] [--connections N] [--seconds S] [--rounds R]
//                         [--redis [URL]] [--database-url URL]
//
// (tools/bench/src/main.ts runs it and prints its line with the others.)
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Pool } from 'undici';

const root = fileURLToPath(new URL('../..', import.meta.url));

function options(args) {
  const value = (name, fallback) => {
    const index = args.indexOf(name);
    if (index < 0) return fallback;
    const next = args[index + 1];
    return next === undefined || next.startsWith('--') ? true : next;
  };
  const quick = args.includes('--quick');
  const redis = value('--redis', undefined);
  return {
    quick,
    route: value('--route', 'notes'),
    connections: Number(value('--connections', 32)),
    seconds: Number(value('--seconds', quick ? 3 : 10)),
    // Bearer and DPoP windows alternate, so load from elsewhere on the machine weighs on both alike.
    rounds: Number(value('--rounds', quick ? 1 : 3)),
    warmupSeconds: quick ? 1 : 2,
    redisUrl: redis === true ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : redis,
    databaseUrl: value('--database-url', process.env.BENCH_DATABASE_URL),
  };
}

/** The resident set size of a process in MiB (Linux `/proc`). */
function rssMiB(pid) {
  try {
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** An issuer the protected server trusts (tools/bench/src/servers/token-issuer.ts, built with the bench). */
async function startIssuer() {
  const { startTokenIssuer } = await import(new URL('./dist/servers/token-issuer.js', import.meta.url).href);
  return startTokenIssuer();
}

async function startProtectedServer({ issuer, databaseUrl, redisUrl }) {
  const main = join(root, 'apps/protected-server/dist/main.js');
  if (!existsSync(main)) {
    throw new Error(
      'apps/protected-server is not built: NX_DAEMON=false npx nx run-many -t build -p protected-server',
    );
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = databaseUrl ? undefined : mkdtempSync(join(tmpdir(), 'portcullis-bench-'));
  const child = spawn(process.execPath, [main], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      // Metrics on, as production runs (scraped with this token; the bench never scrapes).
      METRICS_TOKEN: randomUUID(),
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      RESOURCE_URI: `${url}/mcp`,
      AUTHORIZATION_SERVER: issuer,
      EXTENSIONS: 'dpop',
      // Proofs are signed before the timed windows: allow them the whole run.
      DPOP_PROOF_MAX_AGE: '300',
      // One instance: its proofs' jti may stay in this process without Redis; the embedded database, when no
      // PostgreSQL is given, on purpose.
      ...(redisUrl ? { REDIS_URL: redisUrl } : { SINGLE_INSTANCE: 'true' }),
      ...(databaseUrl
        ? { DATABASE_URL: databaseUrl }
        : { PGLITE_DIR: dataDir, ALLOW_EMBEDDED_DATABASE: 'true' }),
    },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the protected server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('the protected server was not ready within 60 s');
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      await exited;
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The one protected request, for `route`, as undici request options without the credentials. */
function protectedRequest(route, url) {
  if (route === 'mcp') {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    return {
      method: 'POST',
      path: '/mcp',
      htu: `${url}/mcp`,
      body,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
    };
  }
  if (route !== 'notes') throw new Error(`--route must be notes or mcp, not ${route}`);
  return { method: 'GET', path: '/api/notes', htu: `${url}/api/notes`, headers: {} };
}

/**
 * Runs `connections` workers for `seconds`, each sending the request with `headers()` (null ends the window) and
 * waiting for its answer; returns every latency (ms) and the window's length (s).
 */
async function load(pool, request, connections, seconds, headers) {
  const latencies = [];
  let failures = 0;
  let failure;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const endAt = started + seconds * 1000;
  let last = started;
  const worker = async () => {
    for (;;) {
      const now = performance.now();
      if (now >= endAt) return;
      const credentials = headers();
      if (credentials === null) return;
      const sent = performance.now();
      const response = await pool.request({
        method: request.method,
        path: request.path,
        headers: { ...request.headers, ...credentials },
        ...(request.body ? { body: request.body } : {}),
      });
      await response.body.dump();
      last = performance.now();
      if (response.statusCode !== 200) {
        failures += 1;
        failure ??= `${response.statusCode} ${response.headers['www-authenticate'] ?? ''}`;
        continue;
      }
      latencies.push(last - sent);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  // The load generator's own CPU over the window (this process: the proofs are signed before it).
  const used = process.cpuUsage(cpu);
  const wall = (performance.now() - started) / 1000;
  if (failures > 0) throw new Error(`${failures} requests failed, the first with ${failure}`);
  return { latencies, seconds: (last - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, wall };
}

/** Requests per second, latency percentiles (ms) and the generator's cores of several windows together. */
function summary(windows) {
  const latencies = windows.flatMap((window) => window.latencies).sort((a, b) => a - b);
  const seconds = windows.reduce((total, window) => total + window.seconds, 0);
  const cpu = windows.reduce((total, window) => total + window.cpuSeconds, 0);
  const wall = windows.reduce((total, window) => total + window.wall, 0);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), generatorCores: cpu / wall };
}

/** Runs the comparison; resolves with both summaries and the settings used. */
export async function measure(args) {
  const settings = options(args);
  const issuer = await startIssuer();
  const server = await startProtectedServer({ issuer: issuer.issuer, ...settings });
  const pool = new Pool(server.url, { connections: settings.connections, pipelining: 1 });
  try {
    const request = protectedRequest(settings.route, server.url);
    const resource = `${server.url}/mcp`;
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const jkt = await calculateJwkThumbprint(jwk, 'sha256');
    const scope = 'notes:read';
    const bearerToken = await issuer.mint({ aud: resource, scope });
    const dpopToken = await issuer.mint({ aud: resource, scope, cnf: { jkt } });
    const ath = createHash('sha256').update(dpopToken).digest('base64url');

    const bearer = () => ({ authorization: `Bearer ${bearerToken}` });
    await load(pool, request, settings.connections, settings.warmupSeconds, bearer);
    const bearerWindows = [await load(pool, request, settings.connections, settings.seconds, bearer)];

    // DPoP is never faster than Bearer: proofs for the Bearer rate with a margin cover every DPoP window.
    const bearerRate = summary(bearerWindows).rps;
    const needed =
      Math.ceil(bearerRate * 1.5 * (settings.seconds * settings.rounds + settings.warmupSeconds)) + 1_000;
    const proofs = [];
    for (let i = 0; i < needed; i++) {
      const claims = {
        jti: randomUUID(),
        htm: request.method,
        htu: request.htu,
        iat: Math.floor(Date.now() / 1000),
        ath,
      };
      proofs.push(
        await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey),
      );
    }
    let next = 0;
    const dpop = () =>
      next < proofs.length ? { authorization: `DPoP ${dpopToken}`, dpop: proofs[next++] } : null;
    await load(pool, request, settings.connections, settings.warmupSeconds, dpop);
    const dpopWindows = [];
    for (let round = 0; round < settings.rounds; round++) {
      if (round > 0)
        bearerWindows.push(await load(pool, request, settings.connections, settings.seconds, bearer));
      dpopWindows.push(await load(pool, request, settings.connections, settings.seconds, dpop));
    }
    if (next >= proofs.length) process.stderr.write('dpop: the proofs ran out before a window ended\n');
    const bearerResult = summary(bearerWindows);
    const dpopResult = summary(dpopWindows);

    return { bearer: bearerResult, dpop: dpopResult, settings, rss: rssMiB(server.pid) };
  } finally {
    await pool.close();
    await server.close();
    await issuer.close();
  }
}
