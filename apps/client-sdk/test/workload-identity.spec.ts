import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack } from './support/oauth-stack.js';
import { runCli } from './support/run-cli.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
// Workload JWTs as a platform projects them: the client never verifies them, the authorization server does.
const JWT_A =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6Ims4cyJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6cHJvZDphIn0.c2lnLWE';
const JWT_B =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6Ims4cyJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6cHJvZDpiIn0.c2lnLWI';

describe('--workload-token: workload identity federation (MCP SEP-1933) from the command line', () => {
  let dir: string;
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-wif-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  async function start(workload: { refuse?: string } = {}, grantTypes = ['authorization_code', JWT_BEARER]) {
    stack = await startStack({ registration: false, grantTypes, workload });
    const file = join(dir, `token-${Date.now()}`);
    await writeFile(file, `${JWT_A}\n`);
    return { stack, file, env: { PORTCULLIS_HOME: await mkdtemp(join(dir, 'home-')) } };
  }

  it('presents the workload JWT from the file with the jwt-bearer grant, without client authentication, printing it nowhere', async () => {
    const { stack, file, env } = await start();
    const result = await runCli(
      ['call', '--workload-token', file, '--client-id', 'prod-agents', stack.mcpUrl, 'notes_list'],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no notes yet');
    expect(stack.tokenRequests).toHaveLength(1);
    const request = stack.tokenRequests[0];
    expect(request?.get('grant_type')).toBe(JWT_BEARER);
    expect(request?.get('assertion')).toBe(JWT_A);
    expect(request?.get('client_id')).toBe('prod-agents');
    expect(request?.get('resource')).toBe(stack.mcpUrl);
    expect(stack.tokenAuthorizations[0]).toBeUndefined();
    expect(stack.authorizationRequests).toHaveLength(0);
    expect(result.stdout + result.stderr).not.toContain(JWT_A);
  });

  it('reads the file again for the next token, so a rotated token is used', async () => {
    const { stack, file, env } = await start();
    const args = [
      '--workload-token',
      file,
      '--client-id',
      'prod-agents',
      '--store',
      join(dir, 'memoryless.json'),
    ];
    expect((await runCli(['call', ...args, stack.mcpUrl, 'notes_list'], env)).code).toBe(0);
    await writeFile(file, JWT_B);
    // A step-up asks for a new token: it carries the rotated JWT.
    expect((await runCli(['call', ...args, stack.mcpUrl, 'notes_create', '{"title":"x"}'], env)).code).toBe(
      0,
    );
    expect(stack.tokenRequests.map((request) => request.get('assertion'))).toEqual([JWT_A, JWT_B]);
  });

  it.each(['invalid_grant', 'invalid_scope', 'unauthorized_client'])(
    'stops at %s after one token request, with its code and a hint, never authorizing a user',
    async (error) => {
      const { stack, file, env } = await start({ refuse: error });
      const result = await runCli(
        ['call', '--workload-token', file, '--client-id', 'prod-agents', stack.mcpUrl, 'notes_list'],
        env,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`[${error}]`);
      expect(stack.tokenRequests).toHaveLength(1);
      expect(stack.authorizationRequests).toHaveLength(0);
      expect(result.stderr).not.toContain(JWT_A);
    },
  );

  it('stops with grant_type_unsupported where the server does not list jwt-bearer, never authorizing a user', async () => {
    const { stack, file, env } = await start({}, ['authorization_code']);
    const result = await runCli(
      ['call', '--workload-token', file, '--client-id', 'prod-agents', stack.mcpUrl, 'notes_list'],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[grant_type_unsupported]');
    expect(stack.authorizationRequests).toHaveLength(0);
  });

  it('a missing --workload-token file is one line naming the file, exit 1', async () => {
    const { stack, env } = await start();
    const missing = join(dir, 'no-such-token');
    const result = await runCli(
      ['call', '--workload-token', missing, '--client-id', 'prod-agents', stack.mcpUrl, 'notes_list'],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(missing);
    expect(result.stderr).toContain('[workload_token_unavailable]');
    expect(stack.tokenRequests).toHaveLength(0);
  });

  it('acts as the conformance client with the workload JWT of MCP_CONFORMANCE_CONTEXT', async () => {
    const { stack, env } = await start();
    const result = await runCli(['conformance', stack.mcpUrl], {
      ...env,
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-06-18',
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({
        client_id: 'conformance-wif-workload',
        valid_jwt: JWT_A,
        wrong_audience_jwt: JWT_B,
        expired_jwt: JWT_B,
      }),
    });
    expect(result.code).toBe(0);
    expect(stack.tokenRequests.map((request) => request.get('assertion'))).toEqual([JWT_A]);
    expect(stack.tokenRequests[0]?.get('client_id')).toBe('conformance-wif-workload');
    expect(stack.authorizationRequests).toHaveLength(0);
  });

  it.each([
    [['--workload-token', 'f', '--id-jag'], 'two ways to obtain tokens'],
    [['--workload-token', 'f', '--client-id', 'c', '--client-credentials'], 'two ways to obtain tokens'],
    [['--workload-token', 'f', '--client-id', 'c', '--client-secret', 's'], 'only credential'],
    [['--workload-token', 'f'], 'needs --client-id'],
  ])('refuses %j as a usage error', async (args, message) => {
    const result = await runCli(['call', ...args, 'http://127.0.0.1:1/mcp', 'notes_list'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('documents the option in --help', async () => {
    expect((await runCli(['--help'], {})).stdout).toContain('--workload-token <file>');
  });
});
