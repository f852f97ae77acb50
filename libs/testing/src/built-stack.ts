// The built apps (apps/*/dist) as processes, wired to each other on loopback as a user runs them: the stack of the
// end-to-end suites (tools/e2e, tools/e2e-packages).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { postgresServerAvailable, startDatabase, type TestDatabase } from './database.js';
import { runNode, spawnApp, type NodeRun, type SpawnedApp } from './process.js';

// The workspace root, from src/ (tests) and from dist/ (built tools) alike.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const AUTHORIZATION_SERVER = join(root, 'apps/authorization-server/dist/main.js');
const ADMIN = join(root, 'apps/authorization-server/dist/admin/main.js');
const PROTECTED_SERVER = join(root, 'apps/protected-server/dist/main.js');
const PROXY = join(root, 'apps/proxy/dist/main.js');

/** The notes resource as an authorization server (or the proxy) configures it. */
function notesResource(uri: string) {
  return {
    uri,
    name: 'Notes',
    scopes_supported: ['notes:read', 'notes:write'],
    scope_hierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
  };
}

/**
 * The built proxy in front of the stack's authorization server as its upstream (as `npm start` runs it), and a
 * second protected server whose one authorization server is the proxy: a client of this resource meets only the
 * proxy, which signs people in upstream.
 */
export interface ProxiedResource {
  /** The proxy's issuer. */
  readonly issuer: string;
  /** The MCP endpoint of the protected server behind the proxy. */
  readonly resource: string;
  readonly proxy: SpawnedApp;
  readonly protectedServer: SpawnedApp;
}

/** The built authorization server and protected server as processes, wired to each other on loopback. */
export interface BuiltStack {
  readonly issuer: string;
  /** The MCP endpoint, the resource the tokens are for. */
  readonly resource: string;
  readonly user: { username: string; password: string };
  readonly authorizationServer: SpawnedApp;
  readonly protectedServer: SpawnedApp;
  /** Present when started with `proxy: true`. */
  readonly proxied?: ProxiedResource;
  /** Runs `portcullis-admin` against the authorization server's database. */
  admin(...args: string[]): Promise<NodeRun>;
  stop(): Promise<void>;
}

export interface BuiltStackOptions {
  /** Extra environment of the authorization server. */
  readonly authorizationServerEnv?: Record<string, string>;
  /** More resources the authorization server issues tokens for (no server answers at them). */
  readonly extraResources?: readonly { uri: string; scopes_supported: string[] }[];
  /** Extra environment of the protected server. */
  readonly protectedServerEnv?: Record<string, string>;
  /** Commands run with `portcullis-admin` before the authorization server starts (the embedded database allows one process at a time). */
  readonly before?: (admin: BuiltStack['admin']) => Promise<void>;
  /** Also start the proxy, with the authorization server as its upstream, and a protected server behind it. */
  readonly proxy?: boolean;
}

/**
 * Starts the stack as a user would run it: `ISSUER` and `RESOURCES` naming the real loopback ports, the demo user
 * seeded, each app on its own database (a fresh PostgreSQL database on TEST_DATABASE_URL's server or the run's
 * container, else embedded PGlite in a temporary directory).
 */
export async function startBuiltStack(options: BuiltStackOptions = {}): Promise<BuiltStack> {
  const [asPort, psPort] = [await freePort(), await freePort()];
  const issuer = `http://localhost:${asPort}`;
  const resource = `http://localhost:${psPort}/mcp`;
  const user = { username: 'demo', password: randomBytes(9).toString('base64url') };
  const cleanups: (() => Promise<unknown>)[] = [];
  const databaseEnv = async (): Promise<Record<string, string>> => {
    if (postgresServerAvailable()) {
      const database: TestDatabase = await startDatabase({ migrate: false });
      cleanups.push(() => database.stop());
      return { DATABASE_URL: database.url ?? '' };
    }
    const dir = await mkdtemp(join(tmpdir(), 'portcullis-e2e-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return { PGLITE_DIR: dir };
  };
  const asDatabase = await databaseEnv();
  const asEnv = {
    ...asDatabase,
    PORT: String(asPort),
    ISSUER: issuer,
    RESOURCES: JSON.stringify([
      notesResource(resource),
      ...(options.extraResources ?? []).map((extra) => ({ name: extra.uri, ...extra })),
    ]),
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
    SEED_DEMO_USER: 'true',
    DEMO_PASSWORD: user.password,
    LOG_LEVEL: 'info',
    ...options.authorizationServerEnv,
  };
  const admin: BuiltStack['admin'] = (...args) =>
    runNode(ADMIN, args, { NODE_ENV: 'test', ...asEnv, LOG_LEVEL: 'warn' });
  // The proxy's URLs are known before anything starts: its upstream client registers its callback.
  const proxyIssuer = options.proxy ? `http://localhost:${await freePort()}` : '';
  const proxiedResource = options.proxy ? `http://localhost:${await freePort()}/mcp` : '';
  let upstreamClient: { client_id: string; client_secret: string } | undefined;
  try {
    if (options.proxy) {
      // The proxy's own client at its upstream: confidential, redirecting to the proxy's callback.
      const created = await admin(
        ...['clients', 'create', '--name', 'Portcullis proxy', '--auth', 'client_secret_basic'],
        ...['--redirect-uri', `${proxyIssuer}/upstream/callback`, '--json'],
      );
      if (created.code !== 0) throw new Error(`the proxy's upstream client: ${created.stderr}`);
      upstreamClient = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    }
    await options.before?.(admin);
    const authorizationServer = spawnApp(AUTHORIZATION_SERVER, asEnv);
    cleanups.push(() => authorizationServer.stop('SIGTERM'));
    const protectedServer = spawnApp(PROTECTED_SERVER, {
      ...(await databaseEnv()),
      PORT: String(psPort),
      RESOURCE_URI: resource,
      AUTHORIZATION_SERVER: issuer,
      ...options.protectedServerEnv,
    });
    cleanups.push(() => protectedServer.stop('SIGTERM'));
    const proxied = upstreamClient
      ? await startProxied(upstreamClient, cleanups, databaseEnv, {
          issuer: proxyIssuer,
          upstream: issuer,
          resource: proxiedResource,
        })
      : undefined;
    await Promise.all([authorizationServer.ready, protectedServer.ready]);
    if (proxied) await Promise.all([proxied.proxy.ready, proxied.protectedServer.ready]);
    return {
      issuer,
      resource,
      user,
      authorizationServer,
      protectedServer,
      ...(proxied ? { proxied } : {}),
      admin,
      stop: async () => {
        for (const cleanup of cleanups.reverse()) await cleanup();
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup();
    throw error;
  }
}

/** Spawns the proxy (its upstream the stack's authorization server) and the protected server behind it. */
async function startProxied(
  upstreamClient: { client_id: string; client_secret: string },
  cleanups: (() => Promise<unknown>)[],
  databaseEnv: () => Promise<Record<string, string>>,
  urls: { issuer: string; upstream: string; resource: string },
): Promise<ProxiedResource> {
  const proxy = spawnApp(PROXY, {
    ...(await databaseEnv()),
    PORT: new URL(urls.issuer).port,
    ISSUER: urls.issuer,
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
    UPSTREAM_ISSUER: urls.upstream,
    UPSTREAM_CLIENT_ID: upstreamClient.client_id,
    UPSTREAM_CLIENT_SECRET: upstreamClient.client_secret,
    UPSTREAM_SCOPES: 'openid',
    RESOURCES: JSON.stringify([notesResource(urls.resource)]),
    LOG_LEVEL: 'info',
  });
  cleanups.push(() => proxy.stop('SIGTERM'));
  const protectedServer = spawnApp(PROTECTED_SERVER, {
    ...(await databaseEnv()),
    PORT: new URL(urls.resource).port,
    RESOURCE_URI: urls.resource,
    AUTHORIZATION_SERVER: urls.issuer,
  });
  cleanups.push(() => protectedServer.stop('SIGTERM'));
  return { issuer: urls.issuer, resource: urls.resource, proxy, protectedServer };
}
