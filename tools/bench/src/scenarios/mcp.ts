/**
 * What the MCP endpoint costs on the built protected server: `tools/list` in the 2026-07-28 (stateless) era, each
 * request a POST with the per-request `_meta` envelope and one valid bearer token (the guard's verdict cached), against
 * the same process's `/healthz` (which the platform answers without the guard, the SDK or the database). The tokens
 * come from a loopback issuer (servers/token-issuer.ts), so the authorization server is not measured.
 *
 * @see https://modelcontextprotocol.io/specification/draft/basic/transports
 */
import {
  postgresServerAvailable,
  PROTECTED_SERVER_MAIN,
  startDatabase,
  startInstance,
  type Instance,
  type TestDatabase,
} from '@portcullis/testing';
import { compare } from '../compare.js';
import { rssMiB, type Step } from '../load.js';
import { PoolClient } from '../pool-client.js';
import { productionEnv } from '../production-env.js';
import type { ResultRow } from '../report.js';
import { startTokenIssuer } from '../servers/token-issuer.js';
import type { Settings } from '../settings.js';

const REVISION = '2026-07-28';

/** The `tools/list` request of the 2026-07-28 era: the envelope in `_meta`, the method in a header beside it. */
const TOOLS_LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'portcullis-bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

function step(run: () => Promise<{ status: number; text: string }>, what: string, expect: string): Step {
  return async () => {
    const answer = await run();
    if (answer.status !== 200 || !answer.text.includes(expect)) {
      throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
}

export async function mcpToolsListScenario(settings: Settings): Promise<ResultRow[]> {
  if (!postgresServerAvailable()) {
    throw new Error('needs PostgreSQL: give --database-url (or set BENCH_DATABASE_URL)');
  }
  const issuer = await startTokenIssuer();
  let database: TestDatabase | undefined;
  let instance: Instance | undefined;
  let pool: PoolClient | undefined;
  try {
    database = await startDatabase();
    const resource = 'http://127.0.0.1/mcp';
    instance = await startInstance(PROTECTED_SERVER_MAIN, {
      ...productionEnv(),
      DATABASE_URL: database.url ?? '',
      RESOURCE_URI: resource,
      AUTHORIZATION_SERVER: issuer.issuer,
    });
    pool = new PoolClient(instance.url, settings.connections);
    const client = pool;
    const token = await issuer.mint({ aud: resource, scope: 'notes:read notes:write' });
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/list',
    };
    const toolsList = step(
      () => client.send('POST', '/mcp', headers, TOOLS_LIST),
      'tools/list',
      'notes_list',
    );
    const healthz = step(() => client.send('GET', '/healthz'), '/healthz', '');
    const pid = instance.process.process.pid;
    const { ours, peer } = await compare(settings, toolsList, healthz, settings.connections, [pid, pid]);
    return [
      {
        scenario: 'mcp tools/list',
        unit: 'req/s',
        connections: settings.connections,
        ours: { ...ours, rssMiB: rssMiB(pid) },
        peer: { name: 'its own /healthz', ...peer },
        goal: { ratio: 0.5 },
        setup: `POST /mcp tools/list (${REVISION}, stateless), one valid ES256 token (verdict cached), ${settings.connections} connections, ${settings.rounds}x${settings.seconds}s each, the built protected server on PostgreSQL`,
      },
    ];
  } finally {
    await pool?.close();
    await instance?.process.stop('SIGTERM');
    await database?.stop();
    await issuer.close();
  }
}
