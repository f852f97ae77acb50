import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
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
    // RFC 9207 2.4 holds under every revision: the server advertises iss, so it is checked here too.
    expect(call.stderr).toContain('Authorization response accepted (state and iss checked)');
    expect(stack.authorizationRequests.map((request) => request.get('scope'))).toEqual([
      'notes:read notes:write',
    ]);
    expect(stack.registrations[0]).not.toHaveProperty('application_type');
  });

  it('under --revision 2025-11-25 takes the challenged scope and steps up to the newly challenged one, without offline_access', async () => {
    await fresh();

    const call = await runCli(
      ['call', stack.mcpUrl, 'notes_create', '{"title":"x"}', '--headless', '--revision', '2025-11-25'],
      env,
    );

    expect(call.code).toBe(0);
    expect(call.stdout.trim()).toBe('created "x"');
    // 2025-11-25 "Step-Up Authorization Flow" step 2 takes the scopes by the "Scope Selection Strategy" (the
    // challenge's); the union with the earlier ones and the "Refresh Tokens" section come with 2026-07-28.
    expect(stack.authorizationRequests.map((request) => request.get('scope'))).toEqual([
      'notes:read',
      'notes:write',
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

describe('DPoP from the command line (RFC 9449, MCP SEP-1932)', () => {
  let home: string;
  let stack: Awaited<ReturnType<typeof startStack>>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-cli-dpop-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack.close();
  });

  it('binds the tokens to a key of the authorization where the server offers DPoP, and lists them as DPoP-bound without the key', async () => {
    stack = await startStack({ dpop: true });
    const env = { PORTCULLIS_HOME: await mkdtemp(join(home, 'home-')) };

    const call = await runCli(['call', stack.mcpUrl, 'notes_list', '--headless'], env);
    const list = await runCli(['tokens', 'list'], env);

    expect(call.code).toBe(0);
    expect(call.stdout).toContain('no notes yet');
    expect(call.stderr).toMatch(/Access token issued by .*DPoP-bound to this authorization's key/);
    expect(stack.authorizationRequests[0]!.get('dpop_jkt')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stack.tokenProofs.every((proof) => proof !== undefined)).toBe(true);
    const authorized = stack.mcpAuthorizations.filter((entry) => entry.scheme !== undefined);
    expect(authorized.length).toBeGreaterThan(0);
    expect(authorized.every((entry) => entry.scheme === 'DPoP' && entry.proof)).toBe(true);
    expect(list.stdout).toContain('token type: DPoP (bound to a key kept encrypted in the store)');
    expect(list.stdout).not.toMatch(/"d"|"kty"/);
    expect(await readFile(join(env.PORTCULLIS_HOME, 'tokens.json'), 'utf8')).not.toContain('"kty"');
  });

  it('sends Bearer tokens and no proof with --no-dpop', async () => {
    stack = await startStack({ dpop: true });
    const env = { PORTCULLIS_HOME: await mkdtemp(join(home, 'home-')) };

    const call = await runCli(['call', stack.mcpUrl, 'notes_list', '--headless', '--no-dpop'], env);
    const list = await runCli(['tokens', 'list'], env);

    expect(call.code).toBe(0);
    expect(stack.authorizationRequests[0]!.has('dpop_jkt')).toBe(false);
    expect(stack.tokenProofs).toEqual([undefined]);
    const authorized = stack.mcpAuthorizations.filter((entry) => entry.scheme !== undefined);
    expect(authorized.every((entry) => entry.scheme === 'Bearer' && !entry.proof)).toBe(true);
    expect(list.stdout).toContain('token type: Bearer');
  });
});

describe('--private-key: private_key_jwt from the command line (RFC 7523 2.2)', () => {
  let dir: string;
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-key-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  async function keyFile(name: string, format: 'pem' | 'jwk') {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const file = join(dir, name);
    await writeFile(
      file,
      format === 'pem' ? await exportPKCS8(privateKey) : JSON.stringify(await exportJWK(privateKey)),
    );
    return { file, publicKey };
  }

  it.each(['pem', 'jwk'] as const)(
    'logs in as the pre-registered client with a signed assertion from a %s key file, never printing the key',
    async (format) => {
      stack = await startStack({
        registration: false,
        tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
      });
      const { file, publicKey } = await keyFile(`client-${format}`, format);
      const home = await mkdtemp(join(dir, 'home-'));

      const result = await runCli(
        [
          'login',
          stack.mcpUrl,
          '--headless',
          '--client-id',
          'key-client',
          '--private-key',
          file,
          '--key-id',
          'k1',
        ],
        { PORTCULLIS_HOME: home },
      );

      expect(result.code).toBe(0);
      const [token] = stack.tokenRequests;
      expect(token?.get('client_assertion_type')).toBe(
        'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      );
      const { payload, protectedHeader } = await jwtVerify(token?.get('client_assertion') ?? '', publicKey, {
        issuer: 'key-client',
        subject: 'key-client',
        audience: stack.as.url,
      });
      expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'k1' });
      expect(typeof payload.jti).toBe('string');
      const key = await readFile(file, 'utf8');
      expect(result.stdout + result.stderr).not.toContain(key.trim().split('\n')[1] ?? key);
      expect(result.stderr).not.toContain(token?.get('client_assertion'));
    },
  );

  it('registers the public key dynamically when there is no --client-id', async () => {
    stack = await startStack({ tokenEndpointAuthMethods: ['none', 'private_key_jwt'] });
    const { file } = await keyFile('register.pem', 'pem');

    const result = await runCli(['login', stack.mcpUrl, '--headless', '--private-key', file], {
      PORTCULLIS_HOME: await mkdtemp(join(dir, 'home-')),
    });

    expect(result.code).toBe(0);
    expect(stack.registrations[0]).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ kty: 'EC', crv: 'P-256', alg: 'ES256' }] },
    });
    expect(stack.tokenRequests[0]?.get('client_assertion')).toEqual(expect.any(String));
  });

  it('stops with client_auth_unsupported at a server that does not list private_key_jwt', async () => {
    stack = await startStack({ registration: false });
    const { file } = await keyFile('unsupported.pem', 'pem');

    const result = await runCli(
      ['login', stack.mcpUrl, '--headless', '--client-id', 'key-client', '--private-key', file],
      { PORTCULLIS_HOME: await mkdtemp(join(dir, 'home-')) },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[client_auth_unsupported]');
    expect(stack.authorizationRequests).toEqual([]);
  });

  it('acts as the conformance client with the private key of MCP_CONFORMANCE_CONTEXT', async () => {
    stack = await startStack({ registration: false, tokenEndpointAuthMethods: ['private_key_jwt'] });
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });

    const result = await runCli(['conformance', stack.mcpUrl], {
      PORTCULLIS_HOME: await mkdtemp(join(dir, 'home-')),
      MCP_CONFORMANCE_SCENARIO: 'auth/client-credentials-jwt',
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-06-18',
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({
        client_id: 'suite-key-client',
        private_key_pem: await exportPKCS8(privateKey),
        signing_algorithm: 'ES256',
      }),
    });

    expect(result.code).toBe(0);
    await expect(
      jwtVerify(stack.tokenRequests[0]?.get('client_assertion') ?? '', publicKey, {
        issuer: 'suite-key-client',
        subject: 'suite-key-client',
        audience: stack.as.url,
      }),
    ).resolves.toBeDefined();
  });

  it.each([
    ['missing', undefined, 'cannot read the private key file'],
    ['garbage', 'hello', 'cannot be used: not a PEM private key'],
    ['public', 'public', 'cannot be used: a public key'],
  ])('a %s key file is one line naming the file, exit 1', async (name, content, message) => {
    const file = join(dir, `bad-${name}`);
    if (content === 'public') {
      const { publicKey } = await generateKeyPair('ES256', { extractable: true });
      await writeFile(file, JSON.stringify(await exportJWK(publicKey)));
    } else if (content !== undefined) {
      await writeFile(file, content);
    }

    const result = await runCli(
      ['login', 'http://127.0.0.1:1/mcp', '--headless', '--client-id', 'c', '--private-key', file],
      { PORTCULLIS_HOME: dir },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`portcullis: ${result.stderr.slice('portcullis: '.length).trimEnd()}\n`);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain(message);
  });
});

describe('command line usage errors', () => {
  it.each([
    [['call', 'http://127.0.0.1:1/mcp'], 'call needs a tool name'],
    [['login'], 'login needs the MCP server URL'],
    [['login', 'not a url'], 'is not a URL'],
    [
      ['login', 'http://127.0.0.1:1/mcp', '--revision', '2024-01-01'],
      '--revision must be one of 2025-06-18, 2025-11-25, 2026-07-28',
    ],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['login', 'http://127.0.0.1:1/mcp', '--client-secret', 'x'], '--client-secret needs --client-id'],
    [['login', 'http://127.0.0.1:1/mcp', '--key-id', 'k'], '--key-id needs --private-key'],
    [
      ['login', 'http://127.0.0.1:1/mcp', '--client-id', 'c', '--client-secret', 's', '--private-key', 'f'],
      'give one',
    ],
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
    expect(result.stdout).toContain('--private-key <file>');
    expect(result.stdout).toContain('--key-id <kid>');
    expect(result.stdout).toContain('--no-dpop');
  });
});
