import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startIdp } from './support/enterprise-idp.js';
import { startStack } from './support/oauth-stack.js';
import { runCli } from './support/run-cli.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function basic(header: string | undefined): string {
  return Buffer.from(header?.replace(/^Basic /, '') ?? '', 'base64').toString('utf8');
}

describe('--id-jag: enterprise-managed authorization (MCP SEP-990) from the command line', () => {
  let dir: string;
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  let idp: Awaited<ReturnType<typeof startIdp>> | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-id-jag-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack?.close();
    await idp?.close();
    stack = undefined;
    idp = undefined;
  });

  async function start(refuse?: { error: string; error_description?: string }) {
    stack = await startStack({ registration: false, grantTypes: ['authorization_code', JWT_BEARER] });
    idp = await startIdp(refuse === undefined ? {} : { refuse });
    const file = join(dir, `id-token-${Date.now()}`);
    await writeFile(file, `${idp.idToken}\n`);
    return { stack, idp, file, env: { PORTCULLIS_HOME: await mkdtemp(join(dir, 'home-')) } };
  }

  function idJagArgs(idpEndpoint: string, idToken: string): string[] {
    return [
      '--id-jag',
      '--idp-token-endpoint',
      idpEndpoint,
      '--id-token',
      idToken,
      '--idp-client-id',
      'idp-client',
      '--idp-client-secret',
      'idp-secret',
      '--client-id',
      'mcp-client',
      '--client-secret',
      'mcp-secret',
    ];
  }

  it('exchanges the ID token from a file at the IdP and redeems the ID-JAG, printing neither', async () => {
    const { stack, idp, file, env } = await start();

    const result = await runCli(
      ['call', stack.mcpUrl, 'notes_list', ...idJagArgs(idp.tokenEndpoint, file)],
      env,
    );

    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('no notes yet');
    expect(stack.authorizationRequests).toEqual([]);
    expect(idp.exchanges).toHaveLength(1);
    const exchange = idp.exchanges[0]!;
    expect(basic(exchange.headers.authorization)).toBe('idp-client:idp-secret');
    expect(Object.fromEntries(exchange.params)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: idp.idToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: stack.as.url,
      resource: stack.mcpUrl,
      scope: 'notes:read',
    });
    const [idJag] = idp.issued;
    expect(decodeProtectedHeader(idJag!).typ).toBe('oauth-id-jag+jwt');
    expect(decodeJwt(idJag!)).toMatchObject({ aud: stack.as.url, resource: stack.mcpUrl });
    expect(stack.tokenRequests.map((params) => Object.fromEntries(params))).toEqual([
      { grant_type: JWT_BEARER, assertion: idJag, scope: 'notes:read', resource: stack.mcpUrl },
    ]);
    expect(basic(stack.tokenAuthorizations[0])).toBe('mcp-client:mcp-secret');
    expect(result.stderr).toContain(
      `with the ${JWT_BEARER} grant (strategy enterprise-managed-authorization)`,
    );
    for (const secret of [idp.idToken, idJag!, 'idp-secret', 'mcp-secret']) {
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('takes the ID token itself as --id-token, and steps up with a second exchange when the server asks', async () => {
    const { stack, idp, env } = await start();

    const result = await runCli(
      ['call', stack.mcpUrl, 'notes_create', '{"title":"hi"}', ...idJagArgs(idp.tokenEndpoint, idp.idToken)],
      env,
    );

    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('created "hi"');
    expect(idp.exchanges.map((exchange) => exchange.params.get('scope'))).toEqual([
      'notes:read',
      'notes:read notes:write',
    ]);
    expect(stack.tokenRequests.map((params) => params.get('assertion'))).toEqual(idp.issued);
  });

  it('stops with token_exchange_refused and a hint when the IdP refuses, never reaching the MCP server', async () => {
    const { stack, idp, file, env } = await start({
      error: 'invalid_grant',
      error_description: 'ID token expired',
    });

    const result = await runCli(
      ['call', stack.mcpUrl, 'notes_list', ...idJagArgs(idp.tokenEndpoint, file)],
      env,
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('invalid_grant (ID token expired)');
    expect(result.stderr).toContain('[token_exchange_refused]');
    expect(result.stderr).toContain('sign in to the identity provider again');
    expect(result.stderr).not.toContain(idp.idToken);
    expect(stack.tokenRequests).toEqual([]);
  });

  it('acts as the conformance client with the enterprise IdP of MCP_CONFORMANCE_CONTEXT', async () => {
    const { stack, idp, env } = await start();

    const result = await runCli(['conformance', stack.mcpUrl], {
      ...env,
      MCP_CONFORMANCE_SCENARIO: 'auth/enterprise-managed-authorization',
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-06-18',
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({
        client_id: 'suite-client',
        client_secret: 'suite-secret',
        idp_client_id: 'idp-client',
        idp_id_token: idp.idToken,
        idp_issuer: idp.url,
        idp_token_endpoint: idp.tokenEndpoint,
      }),
    });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no notes yet');
    expect(idp.exchanges[0]?.params.get('client_id')).toBe('idp-client');
    expect(idp.exchanges[0]?.headers.authorization).toBeUndefined();
    expect(stack.tokenRequests[0]?.get('grant_type')).toBe(JWT_BEARER);
    expect(stack.tokenRequests[0]?.get('assertion')).toBe(idp.issued[0]);
    expect(basic(stack.tokenAuthorizations[0])).toBe('suite-client:suite-secret');
    expect(stack.authorizationRequests).toEqual([]);
  });

  it('stops with grant_type_unsupported where the authorization server does not list jwt-bearer', async () => {
    stack = await startStack({ registration: false });
    idp = await startIdp();

    const result = await runCli(
      ['call', stack.mcpUrl, 'notes_list', ...idJagArgs(idp.tokenEndpoint, idp.idToken)],
      {
        PORTCULLIS_HOME: await mkdtemp(join(dir, 'home-')),
      },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[grant_type_unsupported]');
    expect(idp.exchanges).toEqual([]);
  });

  it('a missing --id-token file is one line naming the file, exit 1', async () => {
    const file = join(dir, 'no-such-token');

    const result = await runCli(
      ['login', 'http://127.0.0.1:1/mcp', ...idJagArgs('https://idp.example.com/token', file)],
      { PORTCULLIS_HOME: dir },
    );

    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`cannot read the file ${file} (ENOENT)`);
  });

  it('a file that holds no ID token is one line without its content, exit 1', async () => {
    const file = join(dir, 'not-a-token');
    await writeFile(file, 'hello world');

    const result = await runCli(
      ['login', 'http://127.0.0.1:1/mcp', ...idJagArgs('https://idp.example.com/token', file)],
      { PORTCULLIS_HOME: dir },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not hold an ID token');
    expect(result.stderr).not.toContain('hello world');
  });
});

describe('--id-jag usage errors', () => {
  const token = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln';
  it.each([
    [
      ['--id-jag', '--idp-token-endpoint', 'https://idp.example.com/t', '--id-token', token],
      '--id-jag needs --client-id',
    ],
    [
      ['--id-jag', '--client-id', 'c', '--id-token', token],
      '--id-jag needs --idp-token-endpoint and --id-token',
    ],
    [['--id-token', token], '--id-token needs --id-jag'],
    [['--idp-client-id', 'x'], '--idp-client-id needs --id-jag'],
    [
      [
        '--id-jag',
        '--client-credentials',
        '--client-id',
        'c',
        '--idp-token-endpoint',
        'https://i/t',
        '--id-token',
        token,
      ],
      'give one',
    ],
    [
      [
        '--id-jag',
        '--client-id',
        'c',
        '--idp-token-endpoint',
        'https://i/t',
        '--id-token',
        token,
        '--idp-client-secret',
        's',
      ],
      '--idp-client-secret needs --idp-client-id',
    ],
    [
      [
        '--id-jag',
        '--client-id',
        'c',
        '--idp-token-endpoint',
        'http://idp.example.com/t',
        '--id-token',
        token,
      ],
      '--idp-token-endpoint must be an https URL (http only on a loopback host)',
    ],
  ])('%j exits 2 with "%s" and the usage', async (argv, message) => {
    const result = await runCli(['login', 'http://127.0.0.1:1/mcp', ...argv], {});

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: portcullis <command>');
    expect(result.stderr).not.toContain(token);
  });

  it('documents the options in --help', async () => {
    const result = await runCli(['--help'], {});

    for (const option of [
      '--id-jag',
      '--idp-token-endpoint <url>',
      '--id-token <file-or-value>',
      '--idp-client-id',
    ]) {
      expect(result.stdout).toContain(option);
    }
  });
});
