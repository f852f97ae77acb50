import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ClientGrantContext, TokenResponse } from '@portcullis/extensions';
import { workloadIdentityStrategy, WorkloadIdentityError } from './workload-identity.strategy.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const JWT_A = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';
const JWT_B = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJiIn0.c2ln';

let server: Server;
let tokenEndpoint: string;
let received: URLSearchParams[] = [];
let answer: { status: number; body: Record<string, unknown> } = { status: 200, body: {} };
let directory: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push(new URLSearchParams(body));
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  tokenEndpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/token`;
  directory = await mkdtemp(join(tmpdir(), 'wif-'));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(directory, { recursive: true, force: true });
});
beforeEach(() => {
  received = [];
  answer = { status: 200, body: { access_token: 'at', token_type: 'Bearer', expires_in: 60 } };
});

/** A context whose `requestToken` posts to the loopback token endpoint the way the SDK does. */
function context(scope: readonly string[] = []): ClientGrantContext {
  return {
    issuer: 'http://127.0.0.1',
    authorizationServerMetadata: { token_endpoint: tokenEndpoint },
    resource: RESOURCE,
    scope,
    revision: '2026-07-28',
    fetch,
    requestToken: async (params) => {
      const response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...params, resource: RESOURCE, client_id: 'wif-workload' }).toString(),
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) {
        // The SDK's error: the authorization server's `error` in `authorizationServerError` and `details`.
        throw Object.assign(new Error(`refused: ${String(body['error'])}`), {
          details: { status: response.status, error: body['error'] },
          authorizationServerError: { error: body['error'] },
        });
      }
      return body as unknown as TokenResponse;
    },
  };
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('workloadIdentityStrategy', () => {
  it('sends the jwt-bearer grant with the workload JWT, the scope and the resource', async () => {
    const strategy = workloadIdentityStrategy({ token: () => JWT_A });
    expect(strategy.grantType).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect((await strategy.obtainToken(context(['notes:read', 'notes:write']))).access_token).toBe('at');
    expect(Object.fromEntries(received[0] ?? [])).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: JWT_A,
      scope: 'notes:read notes:write',
      resource: RESOURCE,
      client_id: 'wif-workload',
    });
  });

  it('sends no scope when none is chosen', async () => {
    await workloadIdentityStrategy({ token: async () => JWT_A }).obtainToken(context());
    expect(received[0]?.has('scope')).toBe(false);
  });

  it('reads the token file again for every request, so a rotated token is used', async () => {
    const file = join(directory, 'token');
    await writeFile(file, `${JWT_A}\n`);
    const strategy = workloadIdentityStrategy({ tokenFile: file });
    await strategy.obtainToken(context());
    await writeFile(file, JWT_B);
    await strategy.obtainToken(context());
    expect(received.map((form) => form.get('assertion'))).toEqual([JWT_A, JWT_B]);
  });

  it.each(['invalid_grant', 'invalid_scope', 'unauthorized_client'])(
    'surfaces %s as a WorkloadIdentityError with that code, after one request and without the JWT',
    async (error) => {
      answer = { status: 400, body: { error } };
      const failure = await thrown(workloadIdentityStrategy({ token: () => JWT_A }).obtainToken(context()));
      expect(failure).toBeInstanceOf(WorkloadIdentityError);
      expect((failure as WorkloadIdentityError).code).toBe(error);
      expect(JSON.stringify((failure as WorkloadIdentityError).details)).not.toContain(JWT_A);
      expect((failure as Error).message).not.toContain(JWT_A);
      expect(received).toHaveLength(1);
    },
  );

  it('rethrows any other failure unchanged', async () => {
    answer = { status: 500, body: { error: 'server_error' } };
    const failure = await thrown(workloadIdentityStrategy({ token: () => JWT_A }).obtainToken(context()));
    expect(failure).not.toBeInstanceOf(WorkloadIdentityError);
  });

  it.each([
    ['a missing file', { tokenFile: '/nonexistent/portcullis/token' }],
    ['a file without a JWT', { tokenFile: 'EMPTY' }],
    ['a function that fails', { token: () => Promise.reject(new Error('metadata server down')) }],
    ['a function returning no JWT', { token: () => 'not a jwt' }],
  ])('refuses %s as workload_token_unavailable, sending nothing', async (_name, options) => {
    const empty = join(directory, 'empty');
    await writeFile(empty, '\n');
    const resolved = 'tokenFile' in options && options.tokenFile === 'EMPTY' ? { tokenFile: empty } : options;
    const failure = await thrown(workloadIdentityStrategy(resolved).obtainToken(context()));
    expect((failure as WorkloadIdentityError).code).toBe('workload_token_unavailable');
    expect(received).toHaveLength(0);
  });

  it('needs exactly one source of the token', () => {
    expect(() => workloadIdentityStrategy({})).toThrow(TypeError);
    expect(() => workloadIdentityStrategy({ token: () => JWT_A, tokenFile: 'x' })).toThrow(TypeError);
  });
});
