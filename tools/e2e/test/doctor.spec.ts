import { FormUserAgent } from '@portcullis/testing';
// `portcullis doctor` against the real protected server and authorization server (built, as processes): every check
// passes, with a token given on the command line (a read-only client credentials token, a token for another resource
// and a tool it may not call) and with the DPoP-bound token an SDK sign-in stored, proofs and the server's nonce
// included.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthorizedFetch, FileTokenStore, type DoctorReport } from '@portcullis/client';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import { runCli as run } from './support/cli.js';
import { startStack, type Stack } from './support/stack.js';

const OTHER_RESOURCE = 'http://127.0.0.1:9/elsewhere';
const TOKEN_KEY = 'cd'.repeat(32);

const runCli = (args: string[], home: string) =>
  run(args, { PORTCULLIS_HOME: home, PORTCULLIS_TOKEN_KEY: TOKEN_KEY });

type Reader = { client_id: string; client_secret: string };

/** Registers a read-only client credentials client with `portcullis-admin`. */
async function createReader(admin: Stack['admin']): Promise<Reader> {
  const machine = await admin(
    'clients',
    'create',
    '--name',
    'Doctor reader',
    '--grant',
    'client_credentials',
    '--scope',
    'notes:read',
    '--json',
  );
  expect(machine.code).toBe(0);
  return JSON.parse(machine.stdout) as Reader;
}

/** A read-only client credentials token of `reader` for `resource`. */
async function readerToken(stack: Stack, reader: Reader, resource: string): Promise<string> {
  const response = await fetch(`${stack.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(reader.client_id)}:${encodeURIComponent(reader.client_secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'notes:read' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** `portcullis doctor --json` with every token check; the report and the ids of the checks that passed. */
async function fullDoctor(stack: Stack, reader: Reader, home: string) {
  const token = await readerToken(stack, reader, stack.resource);
  const other = await readerToken(stack, reader, OTHER_RESOURCE);
  const args = ['doctor', stack.resource, '--token', token, '--wrong-audience-token', other];
  const result = await runCli([...args, '--step-up-tool', 'notes_create', '--json'], home);
  const report = JSON.parse(result.stdout) as DoctorReport;
  const passed = new Set(report.checks.filter((check) => check.status === 'pass').map((check) => check.id));
  return { result, report, passed, token };
}

/** The lines that warn or fail. */
const problems = (report: DoctorReport) =>
  report.checks.filter((check) => check.status === 'fail' || check.status === 'warn');

describe('portcullis doctor against the real servers', () => {
  let stack: Stack;
  let home: string;
  let reader: Reader;
  let interactiveClientId: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-doctor-'));
    stack = await startStack({
      authorizationServerEnv: { EXTENSIONS: 'client-credentials,dpop' },
      protectedServerEnv: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on' },
      extraResources: [{ uri: OTHER_RESOURCE, scopes_supported: ['notes:read'] }],
      before: async (admin) => {
        reader = await createReader(admin);
        const interactive = await admin(
          'clients',
          'create',
          '--name',
          'Doctor CLI',
          '--redirect-uri',
          'http://127.0.0.1/callback',
          '--json',
        );
        expect(interactive.code).toBe(0);
        interactiveClientId = (JSON.parse(interactive.stdout) as { client_id: string }).client_id;
      },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('passes every check with a token, a token for another resource and a tool the token may not call', async () => {
    const { result, report, passed, token } = await fullDoctor(stack, reader, home);
    expect(problems(report)).toEqual([]);
    expect(result.code).toBe(0);
    for (const id of [
      'challenge.status',
      'challenge.scheme',
      'challenge.resource_metadata',
      'challenge.scope',
      'prm.path-aware',
      'prm.authorization_servers',
      'as.discovery',
      'as.pkce',
      'as.issuer_identical',
      'as.iss',
      'as.client_id_metadata_document',
      'as.cimd_none',
      'as.registration',
      'scopes.offline_access',
      'token.accepted',
      'token.query',
      'token.body',
      'token.audience',
      'token.insufficient_scope',
      'cors.www_authenticate',
    ]) {
      expect({ id, passed: passed.has(id) }).toEqual({ id, passed: true });
    }
    // The step-up probe was refused before the tool ran: no note was created.
    const notes = await fetch(stack.resource.replace(/\/mcp$/, '/api/notes'), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(notes.status).toBe(200);
    expect(await notes.json()).toEqual({ notes: [] });
  });

  it('uses the DPoP-bound token a sign-in stored, with proofs and the server nonce', async () => {
    const store = new FileTokenStore({
      path: join(home, 'tokens.json'),
      env: { PORTCULLIS_TOKEN_KEY: TOKEN_KEY },
    });
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent: new FormUserAgent(stack.user),
      clientCredentials: { clientId: interactiveClientId, issuer: stack.issuer },
      extensions: ExtensionRegistry.compose([
        dpopExtension({ authorizationServer: false, resourceServer: false }),
      ]),
      store,
    });
    const signedIn = await authorizedFetch(stack.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'e2e', version: '1' },
        },
      }),
    });
    expect(signedIn.status).toBe(200);
    await signedIn.body?.cancel();
    const [stored] = await store.findTokens(stack.resource);
    expect(stored?.tokenType).toBe('DPoP');

    const result = await runCli(['doctor', stack.resource], home);
    expect(result.stderr).toContain(`using the token stored for ${stack.resource}`);
    expect(result.stdout).toMatch(
      /^PASS {2}token\.accepted +The token in the Authorization header is accepted/m,
    );
    expect(result.stdout).toMatch(/^PASS {2}token\.query /m);
    expect(result.stdout).not.toMatch(/^(FAIL|WARN) /m);
    expect(result.stdout + result.stderr).not.toContain(stored!.accessToken);
    expect(result.code).toBe(0);
  });
});

describe('portcullis doctor against the real servers under SPEC_REVISION=2026-07-28', () => {
  let stack: Stack;
  let home: string;
  let reader: Reader;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-doctor-2026-'));
    stack = await startStack({
      authorizationServerEnv: { EXTENSIONS: 'client-credentials', SPEC_REVISION: '2026-07-28' },
      protectedServerEnv: { SPEC_REVISION: '2026-07-28' },
      extraResources: [{ uri: OTHER_RESOURCE, scopes_supported: ['notes:read'] }],
      before: async (admin) => {
        reader = await createReader(admin);
      },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('passes every check, speaking the stateless revision: the token accepted through server/discover', async () => {
    const { result, report, passed } = await fullDoctor(stack, reader, home);
    expect(problems(report)).toEqual([]);
    expect(result.code).toBe(0);
    expect(report.checks.find((check) => check.id === 'token.accepted')?.summary).toContain(
      'server/discover: 2026-07-28',
    );
    for (const id of [
      'challenge.status',
      'prm.path-aware',
      'as.issuer_identical',
      'as.pkce',
      'token.accepted',
      'token.query',
      'token.body',
      'token.audience',
      'token.insufficient_scope',
      'cors.www_authenticate',
    ]) {
      expect({ id, passed: passed.has(id) }).toEqual({ id, passed: true });
    }
  });
});
