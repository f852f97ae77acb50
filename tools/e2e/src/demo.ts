import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, findPortcullisError, mcpTransportOptions } from '@portcullis/client';
import { FormUserAgent } from './form-user-agent.js';

/**
 * `npm run demo`: the whole MCP authorization flow, headless, as the demo user, against the local stack (the
 * running one, or one it starts on embedded defaults), one line per step and a summary. Exit 0 only if every step
 * worked.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const ISSUER = process.env['DEMO_AUTHORIZATION_SERVER'] ?? 'http://localhost:4000';
const RESOURCE = process.env['DEMO_RESOURCE'] ?? 'http://localhost:4100/mcp';
const USER = { username: 'demo', password: process.env['DEMO_PASSWORD'] ?? 'demo' };

interface Step {
  readonly name: string;
  ok: boolean;
  detail: string;
}
const steps: Step[] = [];
const started: ChildProcess[] = [];

function record(name: string, ok: boolean, detail: string): void {
  steps.push({ name, ok, detail });
  process.stdout.write(`${ok ? '✔' : '✘'} ${name.padEnd(22)} ${detail}\n`);
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** The stack: the one already running on the default ports, or the built apps started here on embedded defaults. */
async function ensureStack(): Promise<void> {
  const resourceOrigin = new URL(RESOURCE).origin;
  if ((await healthy(ISSUER)) && (await healthy(resourceOrigin))) {
    record('stack', true, `using the running stack (${ISSUER}, ${resourceOrigin})`);
    return;
  }
  const missing = [
    ...((await healthy(ISSUER)) ? [] : ['authorization-server']),
    ...((await healthy(resourceOrigin)) ? [] : ['protected-server']),
  ];
  for (const app of missing) {
    const child = spawn(process.execPath, [join(root, `apps/${app}/dist/main.js`)], {
      cwd: root,
      // The demo's client ID metadata document is served on loopback: allowed only for a loopback issuer.
      env: { ...process.env, CIMD_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    started.push(child);
  }
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (started.some((child) => child.exitCode !== null)) break;
    if ((await healthy(ISSUER)) && (await healthy(resourceOrigin))) {
      record('stack', true, `started ${missing.join(' and ')} on embedded databases`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the stack did not start (see its error above; is something else on ports 4000 and 4100?)');
}

/** Serves this client's client ID metadata document on loopback (development: the issuer is loopback too). */
async function serveClientMetadata(
  redirectUris: readonly string[],
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url !== '/portcullis-demo/client.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    response.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/portcullis-demo/client.json`;
  const document = {
    client_id: url,
    client_name: 'Portcullis demo',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  return { url, server };
}

async function main(): Promise<void> {
  await ensureStack();
  let grantWrite = false;
  const userAgent = new FormUserAgent(USER, () => (grantWrite ? {} : { untick: ['notes:write'] }));
  const { url: clientMetadataUrl, server } = await serveClientMetadata(userAgent.redirectUris);
  let clockOffset = 0;
  try {
    const authorizedFetch = createAuthorizedFetch({
      resource: RESOURCE,
      userAgent,
      clientMetadataUrl,
      now: () => Date.now() + clockOffset,
      onProgress: (event) => record(event.step, true, event.message),
    });
    const mcp = new Client({ name: 'portcullis-demo', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(RESOURCE), mcpTransportOptions(authorizedFetch)),
    );
    record(
      'login and consent',
      userAgent.shown.login === 1,
      `signed in as ${USER.username}; consented to notes:read only`,
    );
    const tools = await mcp.listTools();
    record('tools/list', tools.tools.length > 0, tools.tools.map((tool) => tool.name).join(', '));

    grantWrite = true;
    const title = `demo note ${new Date().toISOString()}`;
    const created = await mcp.callTool({
      name: 'notes_create',
      arguments: { title, body: 'written by npm run demo' },
    });
    record(
      'notes_create',
      !created.isError && userAgent.shown.consent === 2,
      'needed notes:write: stepped up and consented',
    );

    const listed = await mcp.callTool({ name: 'notes_list', arguments: {} });
    record('notes_list', JSON.stringify(listed).includes(title), 'the new note is listed');

    const before = await authorizedFetch.tokens();
    clockOffset = (before?.expiresAt ?? Date.now()) - Date.now() + 60_000;
    const afterRefresh = await mcp.callTool({ name: 'notes_list', arguments: {} });
    const after = await authorizedFetch.tokens();
    record(
      'refresh',
      !afterRefresh.isError && after !== undefined && after.expiresAt !== before?.expiresAt,
      'past the access token expiry (client clock advanced): refreshed with a rotated refresh token',
    );
    await mcp.close();
  } finally {
    server.close();
  }
}

let failure: unknown;
try {
  await main();
} catch (error) {
  failure = error;
  const typed = findPortcullisError(error);
  record(
    'failed',
    false,
    typed ? `${typed.code}: ${typed.message}` : String((error as Error)?.message ?? error),
  );
} finally {
  for (const child of started) child.kill('SIGTERM');
}
const failed = steps.filter((step) => !step.ok);
process.stdout.write(
  `\n${failed.length === 0 && !failure ? 'Demo passed' : 'Demo FAILED'}: ${steps.length - failed.length} of ${steps.length} steps worked\n`,
);
process.exitCode = failed.length === 0 && !failure ? 0 : 1;
