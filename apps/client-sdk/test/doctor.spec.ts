// `portcullis doctor` against a stub MCP server that gets one thing wrong at a time: each planted fault is reported
// by its own check, and a server that gets everything right passes. The real protected server is checked end to end
// in tools/e2e/test/doctor.spec.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { diagnose, type DoctorReport } from '@portcullis/client';
import { runCli } from './support/run-cli.js';

type Fault =
  | 'no-prm'
  | 'wrong-resource'
  | 'no-scope'
  | 'query-token'
  | 'no-s256'
  | 'audience-unchecked'
  | 'broken-openid-configuration'
  | 'origin-metadata-at-root';

const GOOD = 'good-token';
const OTHER_AUDIENCE = 'token-for-another-resource';

/** A stub MCP server and its authorization server's metadata on one origin, with `faults` planted. */
async function startStub(faults: readonly Fault[] = []): Promise<{ url: string; close(): Promise<void> }> {
  let origin = '';
  const has = (fault: Fault) => faults.includes(fault);
  const json = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const challenge = (extra: string) =>
    [
      'Bearer realm="mcp"',
      ...(has('no-prm')
        ? []
        : has('origin-metadata-at-root')
          ? [`resource_metadata="${origin}/.well-known/oauth-protected-resource"`]
          : [`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`]),
      ...(has('no-scope') ? [] : ['scope="notes:read"']),
      ...(extra ? [extra] : []),
    ].join(', ');
  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', origin);
    if (
      request.method === 'GET' &&
      url.pathname === '/.well-known/oauth-protected-resource/mcp' &&
      !has('no-prm')
    ) {
      return json(response, 200, {
        resource: has('wrong-resource') ? 'https://other.example/mcp' : `${origin}/mcp`,
        authorization_servers: [origin],
        scopes_supported: ['notes:read', 'notes:write'],
      });
    }
    if (
      request.method === 'GET' &&
      url.pathname === '/.well-known/oauth-protected-resource' &&
      has('origin-metadata-at-root')
    ) {
      // The origin's metadata, where the challenge sends clients for the MCP endpoint's.
      return json(response, 200, { resource: origin, authorization_servers: [origin] });
    }
    if (
      request.method === 'GET' &&
      url.pathname === '/.well-known/openid-configuration' &&
      has('broken-openid-configuration')
    ) {
      response.writeHead(502, { 'content-type': 'text/html' });
      return response.end('<html>bad gateway</html>');
    }
    if (request.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return json(response, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: has('no-s256') ? ['plain'] : ['S256'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      });
    }
    if (url.pathname !== '/mcp') return json(response, 404, { error: 'not_found' });
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ')
      ? header.slice('Bearer '.length)
      : has('query-token')
        ? (url.searchParams.get('access_token') ?? '')
        : '';
    const accepted = token === GOOD || (token === OTHER_AUDIENCE && has('audience-unchecked'));
    if (!accepted) {
      return json(
        response,
        401,
        { error: 'invalid_token' },
        {
          'www-authenticate': challenge(token ? 'error="invalid_token"' : ''),
        },
      );
    }
    const message = body
      ? (JSON.parse(body) as { id?: number; method?: string; params?: { name?: string } })
      : {};
    if (message.method === 'tools/call' && message.params?.name === 'notes_create') {
      return json(
        response,
        403,
        { error: 'insufficient_scope' },
        {
          'www-authenticate': 'Bearer error="insufficient_scope", scope="notes:read notes:write"',
        },
      );
    }
    return json(response, 200, { jsonrpc: '2.0', id: message.id ?? null, result: {} });
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => handle(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('portcullis doctor against a stub server with planted faults', () => {
  let stub: Awaited<ReturnType<typeof startStub>> | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  /** Runs the doctor with every token check, as JSON; the exit code and each check's status by id. */
  async function doctor(faults: readonly Fault[]) {
    stub = await startStub(faults);
    const args = ['doctor', stub.url, '--token', GOOD, '--wrong-audience-token', OTHER_AUDIENCE];
    const result = await runCli([...args, '--step-up-tool', 'notes_create', '--json'], {
      PORTCULLIS_HOME: '/nonexistent',
    });
    const report = JSON.parse(result.stdout) as DoctorReport;
    const status = (id: string) =>
      report.checks.filter((check) => check.id === id).map((check) => check.status);
    return { result, report, status };
  }

  it('passes a server that gets everything right, printing one line per check and a summary', async () => {
    const { result, report, status } = await doctor([]);
    expect(result.code).toBe(0);
    expect(report.counts.fail).toBe(0);
    expect(report.counts.warn).toBe(0);
    for (const id of [
      'challenge.status',
      'challenge.resource_metadata',
      'challenge.scope',
      'prm.path-aware',
      'as.pkce',
      'as.iss',
      'token.accepted',
      'token.query',
      'token.body',
      'token.audience',
      'token.insufficient_scope',
    ]) {
      expect({ id, status: status(id) }).toEqual({ id, status: ['pass'] });
    }
    // The text form: a line per check with its section, then the summary; the token never printed.
    const text = await runCli(['doctor', stub!.url, '--token', GOOD], { PORTCULLIS_HOME: '/nonexistent' });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^PASS {2}challenge\.status +An MCP request without a token gets 401\. {2}\[RFC 9728 5\.1\]$/m,
    );
    expect(text.stdout).toMatch(/^SKIP {2}token\.audience /m);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /: \d+ passed, 0 warnings, 0 failed, 4 skipped$/,
    );
    expect(text.stdout + text.stderr).not.toContain(GOOD);
  });

  it('fails a server without Protected Resource Metadata', async () => {
    const { result, status } = await doctor(['no-prm']);
    expect(result.code).toBe(1);
    expect(status('challenge.resource_metadata')).toEqual(['warn']);
    expect(status('prm.path-aware')).toEqual(['warn']);
    expect(status('prm.found')).toEqual(['fail']);
  });

  it('fails metadata whose resource is not the server', async () => {
    const { result, report, status } = await doctor(['wrong-resource']);
    expect(result.code).toBe(1);
    expect(status('prm.path-aware')).toEqual(['fail']);
    expect(report.checks.find((check) => check.id === 'prm.path-aware')!.summary).toContain(
      'https://other.example/mcp',
    );
    expect(status('prm.found')).toEqual(['fail']);
  });

  it('warns about a challenge without a scope', async () => {
    const { result, status } = await doctor(['no-scope']);
    expect(result.code).toBe(0);
    expect(status('challenge.scope')).toEqual(['warn']);
  });

  it('fails a server that accepts a token in the query string', async () => {
    const { result, status } = await doctor(['query-token']);
    expect(result.code).toBe(1);
    expect(status('token.query')).toEqual(['fail']);
    expect(status('token.body')).toEqual(['pass']);
  });

  it('fails an authorization server without PKCE S256', async () => {
    const { result, report, status } = await doctor(['no-s256']);
    expect(result.code).toBe(1);
    expect(status('as.pkce')).toEqual(['fail']);
    expect(report.checks.find((check) => check.id === 'as.pkce')!.reference.url).toContain(
      '#authorization-code-protection',
    );
  });

  it('fails a server that accepts a token issued for another resource', async () => {
    const { result, status } = await doctor(['audience-unchecked']);
    expect(result.code).toBe(1);
    expect(status('token.audience')).toEqual(['fail']);
  });

  it('fails resource metadata that the challenge points to when it names the origin, not the server', async () => {
    const { result, status } = await doctor(['origin-metadata-at-root']);
    expect(result.code).toBe(1);
    expect(status('prm.root')).toEqual(['fail']);
  });

  it('only warns about a broken discovery URL after one that works (clients stop at the first)', async () => {
    const { result, report } = await doctor(['broken-openid-configuration']);
    expect(result.code).toBe(0);
    expect(report.checks.filter((check) => check.id === 'as.discovery').map((check) => check.status)).toEqual(
      ['pass', 'warn'],
    );
  });

  it('never sends the token anywhere but the Authorization header', async () => {
    stub = await startStub(['query-token']);
    const seen: string[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      seen.push(
        `${String(input)} ${typeof init?.body === 'string' ? init.body : ''} ${headers.get('authorization') ?? ''}`,
      );
      return fetch(input, init);
    };
    const report = await diagnose({ serverUrl: stub.url, token: { accessToken: GOOD }, fetch: recording });
    expect(report.checks.find((check) => check.id === 'token.query')?.status).toBe('fail');
    const withToken = seen.filter((line) => line.includes(GOOD));
    expect(withToken.length).toBeGreaterThan(0);
    for (const line of withToken) expect(line.endsWith(`Bearer ${GOOD}`)).toBe(true);
    for (const line of withToken) expect(line.split(' ')[0]).not.toContain(GOOD);
  });

  it('fails a server that does not answer, without throwing', async () => {
    stub = await startStub();
    const url = stub.url;
    await stub.close();
    stub = undefined;
    const result = await runCli(['doctor', url], { PORTCULLIS_HOME: '/nonexistent' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL {2}server\.reachable /m);
  });
});
