import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ClientGrantContext, TokenResponse } from '@portcullis/extensions';
import { SignJWT, decodeJwt, generateKeyPair, jwtVerify } from 'jose';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ID_JAG_TOKEN_TYPE, ID_TOKEN_TYPE, JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT } from '../constants.js';
import { IdJagError, idJagStrategy, type IdJagStrategyOptions } from './id-jag.strategy.js';

const ISSUER = 'https://as.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
/** A short JWT-shaped text an IdP might put in an error description. */
const SHORT_JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

interface Recorded {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly params: Record<string, string>;
  readonly repeated: string[];
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** A loopback IdP token endpoint: records every request and answers with `answer`. */
let idp: Server;
let idpUrl: string;
let requests: Recorded[];
let answer: (request: Recorded) => Answer;

let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let idToken: string;

async function jwt(typ: string | undefined, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader(typ === undefined ? { alg: 'ES256' } : { alg: 'ES256', typ })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

beforeAll(async () => {
  ({ privateKey } = await generateKeyPair('ES256'));
  idToken = await jwt(undefined, { iss: 'https://idp.example.com', sub: 'alice', aud: 'idp-client' });
  idp = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const keys = [...form.keys()];
      const recorded: Recorded = {
        method: request.method,
        path: request.url,
        headers: request.headers,
        params: Object.fromEntries(form),
        repeated: keys.filter((key, index) => keys.indexOf(key) !== index),
      };
      requests.push(recorded);
      const { status, body, headers } = answer(recorded);
      response
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  idpUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (idp.closeAllConnections(), idp.close(() => resolve())));
});

let idJag: string;
beforeEach(async () => {
  requests = [];
  idJag = await jwt('oauth-id-jag+jwt', {
    sub: 'alice',
    aud: ISSUER,
    resource: RESOURCE,
    client_id: 'mcp-client',
  });
  answer = () => ({
    status: 200,
    body: { access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', expires_in: 300 },
  });
});

/** Runs the strategy with a context whose `requestToken` records what it is asked and answers with a token. */
async function run(
  options: Partial<IdJagStrategyOptions> = {},
  scope: string[] = ['notes:read', 'notes:write'],
): Promise<{ sent: Record<string, string>[]; result?: TokenResponse; error?: unknown }> {
  const strategy = idJagStrategy({
    idToken,
    idpTokenEndpoint: `${idpUrl}/oauth2/token`,
    idpClientId: 'idp-client',
    idpClientSecret: 'idp-secret',
    ...options,
  });
  const sent: Record<string, string>[] = [];
  const context: ClientGrantContext = {
    issuer: ISSUER,
    authorizationServerMetadata: {},
    resource: RESOURCE,
    scope,
    revision: '2026-07-28',
    requestToken: async (params) => {
      sent.push({ ...params });
      return { access_token: 'mcp-at', token_type: 'Bearer' };
    },
    fetch: (input, init) => fetch(input, init),
  };
  try {
    return { sent, result: await strategy.obtainToken(context) };
  } catch (error) {
    return { sent, error };
  }
}

function basic(header: string | undefined): [string, string] | undefined {
  if (header === undefined || !header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return [
    decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
    decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
  ];
}

function failure(error: unknown): { code?: string; message: string; error?: string; description?: string } {
  if (!(error instanceof IdJagError)) throw new Error(`expected an IdJagError, got ${String(error)}`);
  return {
    code: error.code,
    message: error.message,
    ...(error.idpError === undefined ? {} : { error: error.idpError.error }),
    ...(error.idpError?.errorDescription === undefined
      ? {}
      : { description: error.idpError.errorDescription }),
  };
}

describe('idJagStrategy: token exchange at the IdP (RFC 8693 2.1, SEP-990 section 4)', () => {
  it('ends with the jwt-bearer grant', () => {
    expect(
      idJagStrategy({ idToken: 'x.y.z', idpTokenEndpoint: 'https://idp.example.com/token' }).grantType,
    ).toBe(JWT_BEARER_GRANT);
  });

  it('sends every SEP-990 parameter and authenticates the IdP client with client_secret_basic', async () => {
    const { result, error } = await run();

    expect(error).toBeUndefined();
    expect(result).toEqual({ access_token: 'mcp-at', token_type: 'Bearer' });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/oauth2/token');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers['accept']).toBe('application/json');
    expect(basic(request!.headers['authorization'])).toEqual(['idp-client', 'idp-secret']);
    expect(request!.repeated).toEqual([]);
    expect(request!.params).toEqual({
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: idToken,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: ID_JAG_TOKEN_TYPE,
      audience: ISSUER,
      resource: RESOURCE,
      scope: 'notes:read notes:write',
    });
  });

  it('authenticates the IdP client with private_key_jwt: a fresh assertion for the token endpoint (RFC 7523 2.2, 3)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const idpPrivateKey = { privateKey, algorithm: 'ES256', keyId: 'k1' };
    const { error } = await run({ idpClientSecret: undefined, idpPrivateKey });
    await run({ idpClientSecret: undefined, idpPrivateKey });

    expect(error).toBeUndefined();
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.params);
    expect(requests[0]!.headers['authorization']).toBeUndefined();
    expect(first).toMatchObject({
      client_id: 'idp-client',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    });
    const { payload, protectedHeader } = await jwtVerify(first!['client_assertion']!, publicKey, {
      issuer: 'idp-client',
      subject: 'idp-client',
      audience: `${idpUrl}/oauth2/token`,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'k1' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(60);
    expect(decodeJwt(second!['client_assertion']!).jti).not.toBe(payload.jti);
  });

  it('refuses a private key without a client ID, beside a secret, or for a symmetric algorithm', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const endpoint = 'https://idp.example.com/token';
    expect(() =>
      idJagStrategy({
        idToken,
        idpTokenEndpoint: endpoint,
        idpPrivateKey: { privateKey, algorithm: 'ES256' },
      }),
    ).toThrow(/needs idpClientId/);
    expect(() =>
      idJagStrategy({
        idToken,
        idpTokenEndpoint: endpoint,
        idpClientId: 'c',
        idpClientSecret: 's',
        idpPrivateKey: { privateKey, algorithm: 'ES256' },
      }),
    ).toThrow(/not both/);
    expect(() =>
      idJagStrategy({
        idToken,
        idpTokenEndpoint: endpoint,
        idpClientId: 'c',
        idpPrivateKey: { privateKey, algorithm: 'HS256' },
      }),
    ).toThrow(/asymmetric/);
    expect(requests).toHaveLength(0);
  });

  it('form-encodes the IdP client credentials before Basic encoding (RFC 6749 2.3.1)', async () => {
    await run({ idpClientId: 'idp client:1', idpClientSecret: 's%cr+t:é' });

    expect(requests[0]!.headers['authorization']).toBe(
      `Basic ${Buffer.from('idp+client%3A1:s%25cr%2Bt%3A%C3%A9').toString('base64')}`,
    );
    expect(basic(requests[0]!.headers['authorization'])).toEqual(['idp client:1', 's%cr+t:é']);
    expect(requests[0]!.params).not.toHaveProperty('client_id');
    expect(requests[0]!.params).not.toHaveProperty('client_secret');
  });

  it('names a client without a secret with client_id in the body, and sends no Authorization header', async () => {
    await run({ idpClientSecret: undefined });

    expect(requests[0]!.headers['authorization']).toBeUndefined();
    expect(requests[0]!.params['client_id']).toBe('idp-client');
  });

  it('sends no client identification when none is configured', async () => {
    await run({ idpClientId: undefined, idpClientSecret: undefined });

    expect(requests[0]!.headers['authorization']).toBeUndefined();
    expect(Object.keys(requests[0]!.params).sort()).toEqual([
      'audience',
      'grant_type',
      'requested_token_type',
      'resource',
      'scope',
      'subject_token',
      'subject_token_type',
    ]);
  });
});

describe('idJagStrategy: the jwt-bearer grant at the MCP authorization server (RFC 7523 2.1, SEP-990 section 5)', () => {
  it('redeems the ID-JAG as the assertion with the chosen scope, leaving resource and client auth to the SDK', async () => {
    const { sent } = await run();

    expect(sent).toEqual([
      { grant_type: JWT_BEARER_GRANT, assertion: idJag, scope: 'notes:read notes:write' },
    ]);
  });

  it('sends no scope to either server when none was chosen and the IdP names none', async () => {
    const { sent } = await run({}, []);

    expect(requests[0]!.params).not.toHaveProperty('scope');
    expect(sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idJag }]);
  });

  it('with no scope chosen, requests the scope the IdP granted in the ID-JAG', async () => {
    answer = () => ({
      status: 200,
      body: {
        access_token: idJag,
        issued_token_type: ID_JAG_TOKEN_TYPE,
        token_type: 'N_A',
        scope: 'notes:read',
      },
    });

    const { sent } = await run({}, []);

    expect(sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idJag, scope: 'notes:read' }]);
  });

  it('narrows the request to the scope the IdP granted, never beyond the chosen one', async () => {
    const granting = (scope: string) => () => ({
      status: 200,
      body: { access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', scope },
    });
    answer = granting('notes:read');
    const narrowed = await run({}, ['notes:read', 'notes:write']);
    answer = granting('notes:read notes:write admin');
    const wider = await run({}, ['notes:read']);

    expect(narrowed.sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idJag, scope: 'notes:read' }]);
    expect(wider.sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idJag, scope: 'notes:read' }]);
  });

  it("reads the granted scope from the ID-JAG's scope claim when the response names none", async () => {
    idJag = await jwt('oauth-id-jag+jwt', { sub: 'alice', aud: ISSUER, scope: 'notes:read' });

    const { sent } = await run({}, ['notes:read', 'notes:write']);

    expect(sent).toEqual([{ grant_type: JWT_BEARER_GRANT, assertion: idJag, scope: 'notes:read' }]);
  });

  it('an ID-JAG with none of the chosen scope is scope_not_granted, and no jwt-bearer request', async () => {
    answer = () => ({
      status: 200,
      body: { access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', scope: 'admin' },
    });

    const { sent, error } = await run({}, ['notes:read']);

    expect(sent).toEqual([]);
    expect(failure(error)).toMatchObject({ code: 'scope_not_granted' });
    expect(failure(error).message).toContain('(notes:read)');
    expect(failure(error).message).not.toContain(idJag);
  });

  it('accepts typ application/oauth-id-jag+jwt in any case (RFC 7515 4.1.9)', async () => {
    idJag = await jwt('Application/OAuth-ID-JAG+JWT');

    const { sent, error } = await run();

    expect(error).toBeUndefined();
    expect(sent[0]?.['assertion']).toBe(idJag);
  });

  it('passes an error of the MCP authorization server through unchanged', async () => {
    const refused = new Error('invalid_grant');
    const strategy = idJagStrategy({ idToken, idpTokenEndpoint: `${idpUrl}/token` });

    await expect(
      strategy.obtainToken({
        issuer: ISSUER,
        authorizationServerMetadata: {},
        resource: RESOURCE,
        scope: [],
        revision: '2026-07-28',
        requestToken: () => Promise.reject(refused),
        fetch: (input, init) => fetch(input, init),
      }),
    ).rejects.toBe(refused);
  });
});

describe('idJagStrategy: failures at the IdP never reach the MCP authorization server nor echo a token', () => {
  it('an OAuth error response is token_exchange_refused with the IdP error and description', async () => {
    answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Audience validation failed' },
    });

    const { sent, error } = await run();

    expect(sent).toEqual([]);
    expect(failure(error)).toMatchObject({
      code: 'token_exchange_refused',
      error: 'invalid_grant',
      description: 'Audience validation failed',
    });
    expect((error as IdJagError).details).toMatchObject({
      status: 400,
      error: 'invalid_grant',
      audience: ISSUER,
    });
    expect(failure(error).message).toContain('HTTP 400, invalid_grant (Audience validation failed)');
  });

  it('drops a description that repeats the ID token or the secret, and cuts out other JWTs', async () => {
    answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: `bad subject_token ${idToken}` },
    });
    const echoed = await run();
    answer = () => ({
      status: 401,
      body: { error: 'invalid_client', error_description: 'secret idp-secret is wrong' },
    });
    const secret = await run();
    answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: `not ${SHORT_JWT} here` },
    });
    const other = await run();

    expect(failure(echoed.error)).toEqual(expect.objectContaining({ error: 'invalid_grant' }));
    expect(failure(echoed.error).description).toBeUndefined();
    expect(failure(secret.error).description).toBeUndefined();
    expect(failure(other.error).description).toBe('not [redacted] here');
    for (const { error } of [echoed, secret, other]) {
      expect(failure(error).message).not.toContain(idToken);
      expect(failure(error).message).not.toContain(SHORT_JWT);
      expect(failure(error).message).not.toContain('idp-secret');
      expect(JSON.stringify((error as IdJagError).details)).not.toContain('idp-secret');
    }
  });

  it('shows no error text that is not RFC 6749 5.2 text (control characters)', async () => {
    answer = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'evil\u001b[2Jtext' },
    });

    const { error } = await run();

    expect(failure(error)).toMatchObject({ code: 'token_exchange_refused', error: 'invalid_grant' });
    expect(failure(error).description).toBeUndefined();
    expect(failure(error).message).not.toContain('\u001b');
  });

  it('a 500 without an OAuth error body is token_exchange_refused without an IdP error', async () => {
    answer = () => ({ status: 500, body: 'internal error' });

    const { error } = await run();

    expect(failure(error)).toEqual(
      expect.objectContaining({
        code: 'token_exchange_refused',
        message: expect.stringContaining('HTTP 500'),
      }),
    );
    expect((error as IdJagError).idpError).toBeUndefined();
  });

  it('does not follow a redirect: the ID token is sent once, to the configured endpoint', async () => {
    answer = (request) =>
      request.path === '/oauth2/token'
        ? { status: 307, body: '', headers: { location: `${idpUrl}/elsewhere` } }
        : { status: 200, body: {} };

    const { error } = await run();

    expect(failure(error)).toMatchObject({ code: 'token_exchange_refused' });
    expect(failure(error).message).toContain('a redirect, which is not followed');
    expect(requests.map((request) => request.path)).toEqual(['/oauth2/token']);
  });

  it('an unreachable IdP is idp_request_failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const { sent, error } = await run({ idpTokenEndpoint: `http://127.0.0.1:${port}/token` });

    expect(sent).toEqual([]);
    expect(failure(error)).toMatchObject({ code: 'idp_request_failed' });
    expect(failure(error).message).toContain(`http://127.0.0.1:${port}/token`);
  });

  it.each<[string, () => Promise<unknown>, string]>([
    ['not JSON', async () => 'not json', 'not a JSON object'],
    ['a JSON array', async () => [], 'not a JSON object'],
    [
      'another issued_token_type',
      async () => ({
        access_token: idJag,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }),
      'issued_token_type',
    ],
    ['no issued_token_type', async () => ({ access_token: idJag, token_type: 'N_A' }), 'issued_token_type'],
    ['no access_token', async () => ({ issued_token_type: ID_JAG_TOKEN_TYPE }), 'not a compact JWT'],
    [
      'an opaque access_token',
      async () => ({ access_token: 'opaque-grant', issued_token_type: ID_JAG_TOKEN_TYPE }),
      'not a compact JWT',
    ],
    [
      'a JWT whose header is not JSON',
      async () => ({ access_token: 'bm90LWpzb24.e30.c2ln', issued_token_type: ID_JAG_TOKEN_TYPE }),
      'cannot be decoded',
    ],
    [
      'a JWT with typ JWT',
      async () => ({ access_token: await jwt('JWT'), issued_token_type: ID_JAG_TOKEN_TYPE }),
      'typ is not oauth-id-jag+jwt',
    ],
    [
      'a JWT without typ',
      async () => ({ access_token: await jwt(undefined), issued_token_type: ID_JAG_TOKEN_TYPE }),
      'typ is not oauth-id-jag+jwt',
    ],
    [
      'a malformed scope',
      async () => ({ access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, scope: 'a  b' }),
      'scope',
    ],
  ])(
    'a 200 with %s is invalid_token_exchange_response and no jwt-bearer request',
    async (_name, body, problem) => {
      const resolved = await body();
      answer = () => ({ status: 200, body: resolved });

      const { sent, error } = await run();

      expect(sent).toEqual([]);
      expect(failure(error)).toMatchObject({ code: 'invalid_token_exchange_response' });
      expect(failure(error).message).toContain(problem);
      expect(failure(error).message).not.toContain(idToken);
      if (typeof resolved === 'object' && resolved !== null && 'access_token' in resolved) {
        expect(failure(error).message).not.toContain(String(resolved.access_token));
      }
    },
  );
});

describe('idJagStrategy: options', () => {
  it.each<[string, Partial<IdJagStrategyOptions>, string]>([
    ['an empty ID token', { idToken: '' }, 'idToken'],
    ['an ID token with a line break', { idToken: 'a.b.c\n' }, 'idToken'],
    ['a relative endpoint', { idpTokenEndpoint: '/token' }, 'absolute URL'],
    ['plain http off loopback', { idpTokenEndpoint: 'http://idp.example.com/token' }, 'https'],
    ['a fragment', { idpTokenEndpoint: 'https://idp.example.com/token#x' }, 'fragment'],
    ['userinfo', { idpTokenEndpoint: 'https://u:p@idp.example.com/token' }, 'userinfo'],
    ['a secret without a client ID', { idpClientId: undefined, idpClientSecret: 's' }, 'needs idpClientId'],
    ['an empty client ID', { idpClientId: '' }, 'idpClientId'],
  ])('refuses %s with a TypeError', (_name, options, message) => {
    expect(() =>
      idJagStrategy({ idToken: 'a.b.c', idpTokenEndpoint: 'https://idp.example.com/token', ...options }),
    ).toThrow(expect.objectContaining({ name: 'TypeError', message: expect.stringContaining(message) }));
  });

  it('accepts https anywhere and http on a loopback host', () => {
    for (const idpTokenEndpoint of [
      'https://idp.example.com/oauth2/token',
      'http://localhost:8080/token',
      'http://[::1]/t',
    ]) {
      expect(idJagStrategy({ idToken: 'a.b.c', idpTokenEndpoint }).grantType).toBe(JWT_BEARER_GRANT);
    }
  });
});
