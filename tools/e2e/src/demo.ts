import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  findPortcullisError,
  importClientAssertionKey,
  mcpClientCapabilities,
  mcpTransportOptions,
  MemoryTokenStore,
  type ClientAssertionKey,
} from '@portcullis/client';
import {
  enterpriseManagedAuthorization,
  ID_JAG_STRATEGY,
  JWT_BEARER_GRANT,
  TOKEN_EXCHANGE_GRANT,
} from '@portcullis/extension-enterprise-managed-authorization';
import { ExtensionRegistry } from '@portcullis/extensions';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import { FormUserAgent } from '@portcullis/testing';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * `npm run demo`: the whole MCP authorization flow, headless, as the demo user, against the local stack (the
 * running one, or one it starts on embedded defaults), one line per step and a summary. Exit 0 only if every step
 * worked.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const ISSUER = process.env['DEMO_AUTHORIZATION_SERVER'] ?? 'http://localhost:4000';
const RESOURCE = process.env['DEMO_RESOURCE'] ?? 'http://localhost:4100/mcp';
const USER = { username: 'demo', password: process.env['DEMO_PASSWORD'] ?? 'demo' };
/** The local enterprise identity provider (a second authorization server; see tools/dev-stack/apps.mjs). */
const ENTERPRISE_IDP = process.env['DEMO_ENTERPRISE_IDP'] ?? 'http://localhost:4300';

/** An app of the local stack, as tools/dev-stack/apps.mjs lists it. */
interface StackApp {
  readonly name: string;
  readonly app: string;
  readonly port: number;
  readonly env: Readonly<Record<string, string>>;
}

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

/**
 * The stack: the one already running on the default ports, or the built apps started here on embedded defaults,
 * with the settings `npm start` uses (tools/dev-stack/apps.mjs): the authorization server, the protected server and
 * the enterprise identity provider.
 */
async function ensureStack(): Promise<void> {
  const origins: Record<string, string> = {
    'authorization-server': ISSUER,
    'protected-server': new URL(RESOURCE).origin,
    'enterprise-idp': ENTERPRISE_IDP,
  };
  const allHealthy = async () => (await Promise.all(Object.values(origins).map(healthy))).every(Boolean);
  if (await allHealthy()) {
    record('stack', true, `using the running stack (${Object.values(origins).join(', ')})`);
    return;
  }
  const { APPS } = (await import(pathToFileURL(join(root, 'tools/dev-stack/apps.mjs')).href)) as {
    APPS: readonly StackApp[];
  };
  const missing: string[] = [];
  for (const [name, origin] of Object.entries(origins)) {
    if (await healthy(origin)) continue;
    const app = APPS.find((candidate) => candidate.name === name);
    if (!app) throw new Error(`tools/dev-stack/apps.mjs has no ${name}`);
    missing.push(name);
    const child = spawn(process.execPath, [join(root, `apps/${app.app}/dist/main.js`)], {
      cwd: root,
      env: { ...process.env, ...app.env, PORT: String(app.port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    started.push(child);
  }
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (started.some((child) => child.exitCode !== null)) break;
    if (await allHealthy()) {
      record('stack', true, `started ${missing.join(', ')} on embedded databases`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    'the stack did not start (see its error above; is something else on ports 4000, 4100 and 4300?)',
  );
}

/**
 * Serves the demo's client ID metadata documents on loopback (development: the issuers are loopback too): the
 * public client of the browser flow, and the enterprise agent, a confidential client (`private_key_jwt` with the
 * key it publishes) that signs its users in at the enterprise identity provider and uses their ID-JAGs.
 */
async function serveClientMetadata(
  redirectUris: readonly string[],
  agentKey: ClientAssertionKey,
): Promise<{ url: string; agentUrl: string; server: Server }> {
  const documents = new Map<string, object>();
  const server = createServer((request, response) => {
    const document = documents.get(request.url ?? '');
    if (!document) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    response.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/portcullis-demo/client.json`;
  const agentUrl = `http://127.0.0.1:${port}/portcullis-demo/agent.json`;
  documents.set('/portcullis-demo/client.json', {
    client_id: url,
    client_name: 'Portcullis demo',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  documents.set('/portcullis-demo/agent.json', {
    client_id: agentUrl,
    client_name: 'Portcullis enterprise agent (demo)',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT, JWT_BEARER_GRANT],
    response_types: ['code'],
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [agentKey.publicJwk] },
  });
  return { url, agentUrl, server };
}

/** A fresh ES256 key for the enterprise agent, as the SDK imports a `--private-key` file. */
async function agentKey(): Promise<ClientAssertionKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return importClientAssertionKey({ ...(await exportJWK(privateKey)), kid: 'demo-agent' });
}

/**
 * OpenID Connect sign-in of the demo user at the enterprise identity provider, as the agent (authorization code
 * with PKCE, `private_key_jwt`): the ID token the agent later exchanges for ID-JAGs.
 */
async function enterpriseSignIn(agentUrl: string, key: ClientAssertionKey): Promise<string> {
  const userAgent = new FormUserAgent(USER);
  const session = await userAgent.begin();
  const verifier = generateCodeVerifier();
  const state = randomUUID();
  const authorize = new URL('/authorize', ENTERPRISE_IDP);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: agentUrl,
    redirect_uri: session.redirectUri,
    scope: 'openid',
    code_challenge: codeChallengeS256(verifier),
    code_challenge_method: 'S256',
    state,
  })) {
    authorize.searchParams.set(name, value);
  }
  const callback = new URL(await session.authorize(authorize.href));
  if (callback.searchParams.get('state') !== state) throw new Error('the identity provider lost the state');
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: key.algorithm, ...(key.keyId ? { kid: key.keyId } : {}) })
    .setIssuer(agentUrl)
    .setSubject(agentUrl)
    .setAudience(ENTERPRISE_IDP)
    .setIssuedAt()
    .setExpirationTime('60s')
    .setJti(randomUUID())
    .sign(key.privateKey);
  const response = await fetch(new URL('/token', ENTERPRISE_IDP), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: session.redirectUri,
      code_verifier: verifier,
      client_id: agentUrl,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }).toString(),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok || typeof body['id_token'] !== 'string') {
    throw new Error(`the identity provider issued no ID token: ${response.status} ${JSON.stringify(body)}`);
  }
  return body['id_token'];
}

/**
 * Enterprise-managed authorization (MCP SEP-990): the agent exchanges the user's ID token for an ID-JAG at the
 * enterprise identity provider and redeems it at the authorization server, with no browser, then calls tools.
 */
async function enterpriseFlow(agentUrl: string, key: ClientAssertionKey): Promise<void> {
  const idToken = await enterpriseSignIn(agentUrl, key);
  record(
    'enterprise sign-in',
    true,
    `signed in at the enterprise IdP ${ENTERPRISE_IDP}: an ID token for the agent`,
  );
  const store = new MemoryTokenStore();
  const agentFetch = createAuthorizedFetch({
    resource: RESOURCE,
    clientCredentials: { clientId: agentUrl, issuer: ISSUER, privateKey: key },
    extensions: ExtensionRegistry.compose([
      enterpriseManagedAuthorization({
        client: {
          idToken,
          idpTokenEndpoint: new URL('/token', ENTERPRISE_IDP).href,
          idpClientId: agentUrl,
          idpPrivateKey: key,
        },
      }),
    ]),
    grantStrategy: ID_JAG_STRATEGY,
    store,
  });
  // The client declares the extension it uses in its MCP capabilities (MCP SEP-2133).
  const mcp = new Client(
    { name: 'portcullis-demo-agent', version: '1.0.0' },
    { capabilities: mcpClientCapabilities(agentFetch) },
  );
  await mcp.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), mcpTransportOptions(agentFetch)));
  const title = `enterprise note ${new Date().toISOString()}`;
  const created = await mcp.callTool({ name: 'notes_create', arguments: { title, body: 'via an ID-JAG' } });
  const [tokens] = await store.findTokens(RESOURCE);
  const subject = tokens ? String(decodeJwt(tokens.accessToken).sub) : '';
  record(
    'enterprise ID-JAG',
    !created.isError && subject.startsWith(`${ENTERPRISE_IDP}#`) && tokens?.refreshToken === undefined,
    `ID token exchanged for an ID-JAG, redeemed for a token for ${subject} (no browser, no refresh token)`,
  );
  const listed = await mcp.callTool({ name: 'notes_list', arguments: {} });
  const declared = Object.keys(mcp.getServerCapabilities()?.extensions ?? {});
  record(
    'enterprise notes_list',
    JSON.stringify(listed).includes(title),
    `the enterprise user's own notes (the server declares ${declared.join(', ') || 'no extensions'})`,
  );
  await mcp.close();
}

async function main(): Promise<void> {
  await ensureStack();
  let grantWrite = false;
  const userAgent = new FormUserAgent(USER, () => (grantWrite ? {} : { untick: ['notes:write'] }));
  const key = await agentKey();
  const { url: clientMetadataUrl, agentUrl, server } = await serveClientMetadata(userAgent.redirectUris, key);
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

    await enterpriseFlow(agentUrl, key);
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
