/**
 * The client SDK (`@portcullis/client`) as the `portcullis` command line uses it: an authorized fetch over an
 * encrypted file token store, the DPoP client extension composed, dynamic registration, the official MCP client
 * negotiating its version, one `tools/list`. Against the built authorization server and protected server, each a
 * process on its own PostgreSQL database, wired to each other on loopback.
 *
 * Each round runs, on a new store directory:
 * - the first connection: no tokens, so the whole authorization (resource metadata, authorization server metadata,
 *   registration, the user-agent at the authorization endpoint with sign-in and consent, the token request);
 * - the second: a new authorized fetch and a new store object on the same file, as a new process would be;
 * - the second once more, its clock past the access token's expiry, so it must refresh first.
 *
 * Every request is counted by kind: the client's through the `fetch` the SDK is given, the user-agent's from its
 * history. The second connection to a known server should make no discovery request (resource metadata,
 * authorization server metadata, registration): the goal of both later rows.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#authorization-flow-steps
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  FileTokenStore,
  createAuthorizedFetch,
  mcpClientCapabilities,
  mcpTransportOptions,
  type FetchLike,
} from '@portcullis/client';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import {
  FormUserAgent,
  freePort,
  postgresServerAvailable,
  PROTECTED_SERVER_MAIN,
  startAuthorizationServers,
  startDatabase,
  startInstance,
} from '@portcullis/testing';
import { summarize } from '../load.js';
import type { ResultRow } from '../report.js';
import type { Settings } from '../settings.js';
import { productionEnv } from '../production-env.js';

/** The kinds of request counted, in the order printed. */
const KINDS = [
  'PRM',
  'AS metadata',
  'registration',
  'authorize',
  'sign-in pages',
  'token',
  'MCP',
  'other',
] as const;
type Kind = (typeof KINDS)[number];
type Counts = Record<Kind, number>;

/** The discovery requests a connection to a known server should not make. */
const NO_DISCOVERY = { PRM: 0, 'AS metadata': 0, registration: 0 };

/** The command line's composition: DPoP with authorization servers that offer it (ours does not by default). */
const EXTENSIONS = ExtensionRegistry.compose([
  dpopExtension({ authorizationServer: false, resourceServer: false }),
]);

/** Where the client's requests go, to tell them apart. */
interface Endpoints {
  readonly resource: string;
  readonly authorization: string;
  readonly token: string;
  readonly registration: string | undefined;
}

/** `origin` and path, without query: what identifies an endpoint. */
function endpointOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function classify(url: string, endpoints: Endpoints): Kind {
  const endpoint = endpointOf(url);
  const path = new URL(url).pathname;
  if (path.startsWith('/.well-known/oauth-protected-resource')) return 'PRM';
  if (
    path.startsWith('/.well-known/oauth-authorization-server') ||
    path.endsWith('/.well-known/openid-configuration')
  )
    return 'AS metadata';
  if (endpoint === endpoints.registration) return 'registration';
  if (endpoint === endpoints.authorization) return 'authorize';
  if (endpoint === endpoints.token) return 'token';
  if (endpoint === endpoints.resource) return 'MCP';
  return 'other';
}

/** The fetch given to the SDK: every request it makes, counted by kind, then sent. */
function countingFetch(counts: Counts, endpoints: Endpoints): FetchLike {
  return (input, init) => {
    const url = input instanceof Request ? input.url : new URL(input).href;
    counts[classify(url, endpoints)] += 1;
    return fetch(input, init);
  };
}

/** The running stack and what a connection needs of it. */
interface Stack {
  readonly endpoints: Endpoints;
  readonly user: { username: string; password: string };
  stop(): Promise<void>;
}

/**
 * The built authorization server (its own URL the issuer) and protected server, each on a fresh PostgreSQL database,
 * the protected server's MCP endpoint the resource the authorization server issues tokens for.
 */
async function startStack(): Promise<Stack> {
  if (!postgresServerAvailable()) {
    throw new Error('needs PostgreSQL: give --database-url (or set BENCH_DATABASE_URL)');
  }
  const psPort = await freePort();
  const resource = `http://127.0.0.1:${psPort}/mcp`;
  const production = productionEnv();
  const cluster = await startAuthorizationServers(
    1,
    {
      ...production,
      RESOURCES: JSON.stringify([
        {
          uri: resource,
          name: 'Notes',
          scopes_supported: ['notes:read', 'notes:write'],
          scope_hierarchy: { 'notes:write': ['notes:read'] },
        },
      ]),
    },
    { direct: true },
  );
  const stops: (() => Promise<unknown>)[] = [() => cluster.stop()];
  const stop = async () => {
    for (const each of stops.reverse()) await each();
  };
  try {
    const database = await startDatabase();
    stops.push(() => database.stop());
    const ps = await startInstance(
      PROTECTED_SERVER_MAIN,
      {
        ...production,
        DATABASE_URL: database.url ?? '',
        RESOURCE_URI: resource,
        AUTHORIZATION_SERVER: cluster.issuer,
      },
      psPort,
    );
    stops.push(() => ps.process.stop('SIGTERM'));
    const metadata = (await (
      await fetch(`${cluster.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string | undefined>;
    const endpoint = (name: string) => {
      const value = metadata[name];
      if (value === undefined) throw new Error(`the authorization server publishes no ${name}`);
      return endpointOf(value);
    };
    return {
      endpoints: {
        resource,
        authorization: endpoint('authorization_endpoint'),
        token: endpoint('token_endpoint'),
        registration: metadata['registration_endpoint'] && endpointOf(metadata['registration_endpoint']),
      },
      user: await cluster.createUser(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One connection's requests by kind and how long it took, from creating the client to closing the session. */
interface Connection {
  readonly counts: Counts;
  readonly ms: number;
  /** When the access token in the store expires after the connection (ms since the epoch). */
  readonly expiresAt: number | undefined;
}

/**
 * One connection as one run of `portcullis tools <url>` makes it: a new store object on `storePath`, a new
 * authorized fetch, an MCP session, `tools/list`, close. `clockOffsetMs` moves the client's clock.
 */
async function connect(stack: Stack, storePath: string, clockOffsetMs = 0): Promise<Connection> {
  const counts = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Counts;
  const userAgent = new FormUserAgent({ username: stack.user.username, password: stack.user.password });
  const started = performance.now();
  const authorizedFetch = createAuthorizedFetch({
    resource: stack.endpoints.resource,
    userAgent,
    extensions: EXTENSIONS,
    store: new FileTokenStore({ path: storePath, env: {} }),
    clientRegistration: { clientName: 'Portcullis bench', softwareId: 'portcullis-bench' },
    fetch: countingFetch(counts, stack.endpoints),
    now: () => Date.now() + clockOffsetMs,
  });
  const client = new Client(
    { name: 'portcullis-bench', version: '0.0.0' },
    { capabilities: mcpClientCapabilities(authorizedFetch), versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(stack.endpoints.resource),
      mcpTransportOptions(authorizedFetch),
    ),
  );
  try {
    const { tools } = await client.listTools();
    if (tools.length === 0) throw new Error('the protected server listed no tools');
  } finally {
    await client.close();
  }
  const ms = performance.now() - started;
  for (const entry of userAgent.browser.history) {
    counts[classify(entry.url, stack.endpoints) === 'authorize' ? 'authorize' : 'sign-in pages'] += 1;
  }
  return { counts, ms, expiresAt: (await authorizedFetch.tokens())?.expiresAt };
}

/** The row of one connection of every round: the most of each kind any round made, and the times. */
function row(
  scenario: string,
  connections: readonly Connection[],
  setup: string,
  goal?: ResultRow['goal'],
): ResultRow {
  const counts: Partial<Record<Kind, number>> = {};
  for (const kind of KINDS) {
    const most = Math.max(...connections.map((connection) => connection.counts[kind]));
    if (kind !== 'other' || most > 0) counts[kind] = most;
  }
  const varied = KINDS.some((kind) => new Set(connections.map((c) => c.counts[kind])).size > 1);
  const { p50, p99 } = summarize([{ latencies: connections.map((c) => c.ms), seconds: 0 }]);
  return {
    scenario,
    unit: 'requests',
    ours: { rate: Object.values(counts).reduce((sum, count) => sum + count, 0), p50, p99 },
    counts,
    ...(goal === undefined ? {} : { goal }),
    setup: `${setup}${varied ? '; the counts varied between rounds, the most shown' : ''}`,
  };
}

export async function clientScenario(settings: Settings): Promise<ResultRow[]> {
  const rounds = settings.quick ? 2 : 10;
  const stack = await startStack();
  const dirs: string[] = [];
  try {
    const first: Connection[] = [];
    const second: Connection[] = [];
    const expired: Connection[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = await mkdtemp(join(tmpdir(), 'portcullis-bench-client-'));
      dirs.push(dir);
      const storePath = join(dir, 'tokens.json');
      first.push(await connect(stack, storePath));
      const warm = await connect(stack, storePath);
      second.push(warm);
      const expiresAt = warm.expiresAt;
      if (expiresAt === undefined) throw new Error('the access token has no expiry to pass');
      expired.push(await connect(stack, storePath, Math.max(0, expiresAt - Date.now()) + 1_000));
    }
    const setup = `${rounds} rounds, each on a new file store; one connection = new store object and authorized fetch, MCP session, tools/list, close; authorize and sign-in pages are the user-agent's requests; on PostgreSQL`;
    return [
      row('client, first connection', first, setup),
      row('client, second connection', second, setup, { counts: NO_DISCOVERY }),
      row('client, second connection, access token expired', expired, setup, { counts: NO_DISCOVERY }),
    ];
  } finally {
    await stack.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}
