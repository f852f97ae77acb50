// `portcullis call` against an MCP server that trusts our authorization server but does not speak DPoP (the official
// MCP TypeScript SDK's server with its own `requireBearerAuth`), with the authorization server configured as
// `npm start` runs it (tools/dev-stack/apps.mjs: DPoP offered). The built command line, as a process, signs in
// through the real login and consent pages (the URL it prints for a person, opened by a headless user-agent), and
// gets a Bearer token for that server, because its resource metadata and its challenge say nothing of DPoP (RFC 9728
// 2, RFC 9449 7.1); the same command line against our protected server, which advertises DPoP, gets a DPoP-bound one.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FileTokenStore } from '@portcullis/client';
import { FormUserAgent, freePort } from '@portcullis/testing';
import { startBearerOnlyMcpServer, type BearerOnlyMcpServer } from './support/bearer-only-mcp-server.js';
import { startStack, type Stack } from './support/stack.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(root, 'apps/client-sdk/bin/portcullis.js');

/** The environment `npm start` gives an app of the local stack (tools/dev-stack/apps.mjs). */
async function devStackEnv(name: string): Promise<Record<string, string>> {
  const { APPS } = (await import(pathToFileURL(join(root, 'tools/dev-stack/apps.mjs')).href)) as {
    APPS: { name: string; env: Record<string, string> }[];
  };
  const app = APPS.find((entry) => entry.name === name);
  if (!app) throw new Error(`tools/dev-stack/apps.mjs has no ${name}`);
  return app.env;
}

interface CallOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `portcullis call <resource> <tool>` as a person would in a terminal without a desktop: no browser opener on
 * its PATH, so it prints the authorization URL, which the user-agent opens and answers; the authorization response
 * then reaches the command line's loopback listener.
 */
async function callSigningIn(
  args: readonly string[],
  env: Record<string, string>,
  userAgent: FormUserAgent,
): Promise<CallOutcome> {
  const child = spawn(process.execPath, [CLI, 'call', ...args], {
    env: { ...env, PATH: env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const signIns: Promise<void>[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    // Each authorization prints its URL once; each is answered once, in order.
    const urls = [...stderr.matchAll(/visit:\s+(http\S+)/g)].map((match) => match[1] as string);
    for (const url of urls.slice(signIns.length)) {
      const redirectUri = new URL(url).searchParams.get('redirect_uri') ?? '';
      signIns.push(
        userAgent.authorize(url, redirectUri).then(async (callback) => {
          await (await fetch(callback)).arrayBuffer();
        }),
      );
    }
  });
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exit) => resolve(exit ?? -1));
  });
  await Promise.all(signIns);
  return { code, stdout, stderr };
}

describe('portcullis call against an MCP server that does not speak DPoP (npm start configuration)', () => {
  let stack: Stack;
  let server: BearerOnlyMcpServer;
  let home: string;
  let env: Record<string, string>;
  const scopes = ['tasks:read'];
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-bearer-only-'));
    // An empty directory as PATH: no browser opener, so the command line prints the URL instead.
    env = { PORTCULLIS_HOME: home, PATH: await mkdtemp(join(tmpdir(), 'portcullis-no-browser-')) };
    const port = await freePort();
    const serverResource = `http://localhost:${port}/mcp`;
    const protectedServerEnv = await devStackEnv('protected-server');
    stack = await startStack({
      authorizationServerEnv: await devStackEnv('authorization-server'),
      protectedServerEnv: { EXTENSIONS: protectedServerEnv['EXTENSIONS'] ?? '' },
      extraResources: [{ uri: serverResource, scopes_supported: scopes }],
    });
    server = await startBearerOnlyMcpServer({ port, issuer: stack.issuer, scopes });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await stack?.stop();
    await rm(home, { recursive: true, force: true });
    if (env?.['PATH']) await rm(env['PATH'], { recursive: true, force: true });
  });

  it('calls a tool with a Bearer token although the authorization server offers DPoP', async () => {
    const offered = (await (
      await fetch(`${stack.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(offered['dpop_signing_alg_values_supported']).toEqual(expect.arrayContaining(['ES256']));
    const prm = (await (
      await fetch(
        `http://localhost:${new URL(server.resource).port}/.well-known/oauth-protected-resource/mcp`,
      )
    ).json()) as Record<string, unknown>;
    expect(prm).not.toHaveProperty('dpop_signing_alg_values_supported');

    const run = await callSigningIn([server.resource, 'whoami'], env, new FormUserAgent(stack.user));

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    expect(JSON.parse(run.stdout)).toMatchObject({ scope: expect.arrayContaining(scopes) });
    expect(run.stderr).toContain(
      `${stack.issuer} offers DPoP; ${server.resource} does not advertise it, so Bearer tokens are requested`,
    );
    // The first request had no token (401); every later one carried the Bearer token, none a DPoP proof.
    const [first, ...authorized] = server.requests;
    expect(first?.scheme).toBeUndefined();
    expect(authorized.length).toBeGreaterThan(0);
    expect(authorized.every((request) => request.scheme === 'Bearer' && !request.dpop)).toBe(true);
    const store = new FileTokenStore({ path: join(home, 'tokens.json'), env: {} });
    const [tokens] = await store.findTokens(server.resource);
    expect(tokens).toMatchObject({ issuer: stack.issuer, tokenType: 'Bearer' });
    expect(tokens?.proofKey).toBeUndefined();
  });

  it('still binds the tokens of our protected server, which advertises DPoP, with the same configuration', async () => {
    const run = await callSigningIn([stack.resource, 'notes_list'], env, new FormUserAgent(stack.user));

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    const store = new FileTokenStore({ path: join(home, 'tokens.json'), env: {} });
    const [tokens] = await store.findTokens(stack.resource);
    expect(tokens).toMatchObject({ issuer: stack.issuer, tokenType: 'DPoP' });
    expect(tokens?.proofKey).toBeDefined();
    expect(run.stderr).not.toContain('does not advertise');
  });
});
