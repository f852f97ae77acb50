import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from './support/oauth-stack.js';
import { runCli } from './support/run-cli.js';

describe('the portcullis command line against a real MCP server', () => {
  let home: string;
  let env: Record<string, string>;
  let stack: Awaited<ReturnType<typeof startStack>>;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-cli-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack.close();
  });

  async function fresh(options: Parameters<typeof startStack>[0] = {}) {
    stack = await startStack(options);
    env = { PORTCULLIS_HOME: await mkdtemp(join(home, 'home-')) };
  }

  it('logs in headlessly, prints one line per step, and stores the tokens encrypted with mode 0600', async () => {
    await fresh();

    const result = await runCli(['login', stack.mcpUrl, '--headless'], env);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Logged in to .*\/mcp as client client-1 of http:\/\/127\.0\.0\.1:\d+ \(scope: notes:read offline_access/,
    );
    const steps = result.stderr.split('\n').filter((line) => line.startsWith('  · '));
    expect(steps).toHaveLength(9);
    [
      /asked for authorization \(401\)$/,
      /^ {2}· Resource metadata from http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp/,
      /^ {2}· Authorization server http:\/\/127\.0\.0\.1:\d+ \(metadata /,
      /^ {2}· Registering a client at /,
      /^ {2}· Registered client ID client-1 at /,
      /^ {2}· Authorizing at http:\/\/127\.0\.0\.1:\d+\/authorize \(scope: notes:read offline_access\)$/,
      /^ {2}· Authorization response accepted \(state and iss checked\)$/,
      /^ {2}· Access token issued by .* to client-1 \(scope: notes:read offline_access, expires in 3600 s\)$/,
      /^ {2}· Retrying POST \/mcp with the new token$/,
    ].forEach((pattern, index) => expect(steps[index]).toMatch(pattern));
    const store = join(env['PORTCULLIS_HOME']!, 'tokens.json');
    expect((await stat(store)).mode & 0o777).toBe(0o600);
    expect(await readFile(store, 'utf8')).not.toMatch(/at-[0-9a-f]{24}/);
  });

  it('lists the tools and calls one, stepping up when the server asks for more scope', async () => {
    await fresh();

    const tools = await runCli(['tools', stack.mcpUrl, '--headless'], env);
    const call = await runCli(['call', stack.mcpUrl, 'notes_create', '{"title":"hello"}', '--headless'], env);

    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('notes_list  List notes');
    expect(tools.stdout).toContain('notes_create (title)  Create a note');
    expect(call.code).toBe(0);
    expect(call.stdout.trim()).toBe('created "hello"');
    expect(call.stderr).toContain('needs more scope (403: notes:write)');
    expect(stack.authorizationRequests.map((request) => request.get('scope'))).toEqual([
      'notes:read offline_access',
      'notes:read notes:write offline_access',
    ]);
    expect(stack.registrations).toHaveLength(1);
  });

  it('asks for every scope the resource supports under --revision 2025-06-18, without offline_access', async () => {
    await fresh();

    const call = await runCli(
      ['call', stack.mcpUrl, 'notes_create', '{"title":"x"}', '--headless', '--revision', '2025-06-18'],
      env,
    );

    expect(call.code).toBe(0);
    expect(call.stderr).toContain('Authorization response accepted (state checked)');
    expect(stack.authorizationRequests.map((request) => request.get('scope'))).toEqual([
      'notes:read notes:write',
    ]);
    expect(stack.registrations[0]).not.toHaveProperty('application_type');
  });

  it('lists stored tokens without their values and forgets them on logout', async () => {
    await fresh();
    await runCli(['login', stack.mcpUrl, '--headless'], env);

    const list = await runCli(['tokens', 'list'], env);
    const logout = await runCli(['tokens', 'logout', stack.mcpUrl], env);
    const after = await runCli(['tokens', 'list'], env);

    expect(list.stdout).toContain(
      `${stack.mcpUrl}  issuer ${stack.as.url}  client client-1  scope notes:read offline_access`,
    );
    expect(list.stdout).not.toMatch(/at-[0-9a-f]{24}/);
    expect(logout.stdout).toContain('Forgot 1 token set(s)');
    expect(after.stdout).toContain('No stored tokens');
  });

  it('uses the client ID and secret given on the command line instead of registering', async () => {
    await fresh({ registration: false });

    const result = await runCli(
      ['login', stack.mcpUrl, '--headless', '--client-id', 'cli-client', '--issuer', stack.as.url],
      env,
    );

    expect(result.code).toBe(0);
    expect(stack.registrations).toEqual([]);
    expect(stack.authorizationRequests[0]!.get('client_id')).toBe('cli-client');
  });

  it('tells the user to supply a client ID when the server offers no registration', async () => {
    await fresh({ registration: false });

    const result = await runCli(['login', stack.mcpUrl, '--headless'], env);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[no_client_id]');
    expect(result.stderr).toContain('pass --client-id');
    expect(stack.authorizationRequests).toEqual([]);
  });

  it('acts as the conformance client with the pre-registered credentials of MCP_CONFORMANCE_CONTEXT', async () => {
    await fresh({ registration: false });

    const result = await runCli(['conformance', stack.mcpUrl], {
      ...env,
      MCP_CONFORMANCE_SCENARIO: 'auth/pre-registration',
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-06-18',
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({
        client_id: 'suite-client',
        client_secret: 'suite-secret',
        issuer: stack.as.url,
      }),
    });

    expect(result.code).toBe(0);
    expect(result.stderr).toContain('protocol 2025-06-18, revision 2025-06-18');
    expect(result.stdout).toContain('no notes yet');
    expect(stack.authorizationRequests[0]!.get('client_id')).toBe('suite-client');
  });
});

describe('command line usage errors', () => {
  it.each([
    [['call', 'http://127.0.0.1:1/mcp'], 'call needs a tool name'],
    [['login'], 'login needs the MCP server URL'],
    [['login', 'not a url'], 'is not a URL'],
    [
      ['login', 'http://127.0.0.1:1/mcp', '--revision', '2024-01-01'],
      '--revision must be one of 2025-06-18, 2026-07-28',
    ],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['login', 'http://127.0.0.1:1/mcp', '--client-secret', 'x'], '--client-secret needs --client-id'],
  ])('%j exits 2 with "%s" and the usage', async (argv, message) => {
    const result = await runCli(argv, {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: portcullis <command>');
  });

  it('prints the usage with --help and exits 0', async () => {
    const result = await runCli(['--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('conformance <server-url>');
  });
});
