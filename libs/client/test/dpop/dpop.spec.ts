import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clientCredentialsExtension,
  CLIENT_CREDENTIALS_STRATEGY,
} from '@portcullis/extension-client-credentials';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { findPortcullisError } from '../../src/errors/portcullis-error.js';
import { FileTokenStore } from '../../src/store/file-token-store.js';
import type { AuthorizedFetchOptions } from '../../src/authorized-fetch.js';
import {
  FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
} from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import type { DpopServerOptions } from '../support/dpop.fixture.js';
import {
  FakeResourceServer,
  rpc,
  type FakeResourceServerOptions,
} from '../support/resource-server.fixture.js';

const DPOP_CLIENT = ExtensionRegistry.compose([
  dpopExtension({ authorizationServer: false, resourceServer: false }),
]);

// notes_create needs notes:write; everything else notes:read.
function requiredScopes(body: Record<string, unknown>): string[] {
  const params = body['params'] as { name?: string } | undefined;
  return body['method'] === 'tools/call' && params?.name === 'notes_create'
    ? ['notes:write']
    : ['notes:read'];
}

function claims(proof: string | undefined): Record<string, unknown> {
  return decodeJwt(proof ?? '');
}

async function thumbprintOf(proof: string | undefined): Promise<string> {
  return calculateJwkThumbprint(decodeProtectedHeader(proof ?? '').jwk as JWK, 'sha256');
}

describe('DPoP (RFC 9449, MCP SEP-1932)', () => {
  const servers: { close(): Promise<void> }[] = [];
  const directories: string[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function stack(
    options: {
      as?: FakeAuthorizationServerOptions;
      rs?: Partial<FakeResourceServerOptions>;
      asDpop?: (DpopServerOptions & { issueBearer?: boolean }) | false;
      rsDpop?: DpopServerOptions;
    } = {},
  ) {
    const as = await FakeAuthorizationServer.start({
      scopesSupported: ['notes:read', 'notes:write', 'offline_access'],
      ...(options.asDpop === false ? {} : { dpop: options.asDpop ?? {} }),
      ...options.as,
    });
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [as],
      challengeScope: ['notes:read'],
      scopesSupported: ['notes:read', 'notes:write'],
      requiredScopes,
      dpop: options.rsDpop ?? {},
      ...options.rs,
    });
    servers.push(as, rs);
    return { as, rs };
  }

  function client(rs: FakeResourceServer, options: Partial<AuthorizedFetchOptions> = {}) {
    return clientFor(rs, { extensions: DPOP_CLIENT, ...options });
  }

  it('binds the authorization to a key of its own: dpop_jkt at /authorize, a proof at the token request, a DPoP token', async () => {
    const { as, rs } = await stack();
    const { fetch, store } = client(rs);

    const response = await fetch(rs.url, rpc('tools/list'));

    expect(response.status).toBe(200);
    const [tokens] = await store.findTokens(rs.url);
    expect(tokens?.tokenType).toBe('DPoP');
    expect(tokens?.proofKey).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', d: expect.any(String) });
    const jkt = await calculateJwkThumbprint(tokens?.proofKey as JWK, 'sha256');
    expect(as.authorizationRequests[0]?.get('dpop_jkt')).toBe(jkt);
    const [tokenRequest] = as.grants('authorization_code');
    expect(claims(tokenRequest?.dpop)).toMatchObject({ htm: 'POST', htu: `${as.issuer}/token` });
    expect(claims(tokenRequest?.dpop)).not.toHaveProperty('ath');
    expect(as.dpop?.proofs).toEqual([expect.objectContaining({ jkt })]);
    expect(decodeProtectedHeader(tokenRequest?.dpop ?? '').jwk).not.toHaveProperty('d');
    expect(rs.requests.map((request) => request.status)).toEqual([401, 200]);
    expect(rs.requests[1]?.authorization).toBe(`DPoP ${tokens?.accessToken}`);
    expect(await fetch.tokens()).toMatchObject({ tokenType: 'DPoP', keyBound: true });
  });

  it('sends a fresh proof of each request, with its method, URL and ath, on every request (POST, GET, DELETE)', async () => {
    const { rs } = await stack();
    const { fetch } = client(rs);

    await fetch(rs.url, rpc('tools/list'));
    await fetch(`${rs.url}?session=1`, { method: 'GET', headers: { accept: 'text/event-stream' } });
    await fetch(rs.url, { method: 'DELETE' });
    await fetch(rs.url, rpc('tools/call', { name: 'notes_list' }));

    const authorized = rs.requests.filter((request) => request.authorization !== undefined);
    expect(authorized.map((request) => request.status)).toEqual([200, 200, 200, 200]);
    expect(authorized.map((request) => [request.method, claims(request.dpop)['htm']])).toEqual([
      ['POST', 'POST'],
      ['GET', 'GET'],
      ['DELETE', 'DELETE'],
      ['POST', 'POST'],
    ]);
    expect(authorized.every((request) => claims(request.dpop)['htu'] === rs.url)).toBe(true);
    expect(new Set(authorized.map((request) => claims(request.dpop)['jti'])).size).toBe(4);
    expect(authorized.every((request) => typeof claims(request.dpop)['ath'] === 'string')).toBe(true);
    expect(rs.dpop?.proofs.every((proof) => proof.error === undefined)).toBe(true);
  });

  it('retries a token request once with the nonce of a use_dpop_nonce answer, and uses it for the next token request', async () => {
    const { as, rs } = await stack({ asDpop: { nonce: 'required' } });
    const { fetch } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    as.expireAccessTokens();
    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.tokenRequests.map((request) => [request.params.get('grant_type'), request.status])).toEqual([
      ['authorization_code', 400],
      ['authorization_code', 200],
      ['refresh_token', 200],
    ]);
    const [first, second, refresh] = as.tokenRequests;
    expect(claims(first?.dpop)).not.toHaveProperty('nonce');
    expect(claims(second?.dpop)['nonce']).toEqual(expect.any(String));
    expect(claims(refresh?.dpop)['nonce']).toBe(claims(second?.dpop)['nonce']);
    expect(claims(second?.dpop)['jti']).not.toBe(claims(first?.dpop)['jti']);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('gives up after one retry when the token endpoint keeps asking for a new nonce', async () => {
    const { as, rs } = await stack({ asDpop: { nonce: 'always-new' } });
    const { fetch, store } = client(rs);

    const outcome = await fetch(rs.url, rpc('tools/list')).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(findPortcullisError(outcome)?.code).toBe('token_request_failed');
    expect(as.tokenRequests.map((request) => request.status)).toEqual([400, 400]);
    expect(await store.findTokens(rs.url)).toEqual([]);
  });

  it('retries a resource request once with the resource nonce, without a new authorization', async () => {
    const { as, rs } = await stack({ rsDpop: { nonce: 'required' } });
    const { fetch } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(rs.requests.map((request) => request.status)).toEqual([401, 401, 200, 200]);
    expect(claims(rs.requests[1]?.dpop)).not.toHaveProperty('nonce');
    const nonce = claims(rs.requests[2]?.dpop)['nonce'];
    expect(nonce).toEqual(expect.any(String));
    // Remembered for the origin: the next request carries it from the start.
    expect(claims(rs.requests[3]?.dpop)['nonce']).toBe(nonce);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.grants('refresh_token')).toHaveLength(0);
  });

  it('sends each token at most twice to a resource that keeps asking for a new nonce, and ends with token_rejected', async () => {
    const { as, rs } = await stack({ rsDpop: { nonce: 'always-new' } });
    const { fetch } = client(rs);

    const outcome = await fetch(rs.url, rpc('tools/list')).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(findPortcullisError(outcome)?.code).toBe('token_rejected');
    const perToken = new Map<string, number>();
    for (const request of rs.requests) {
      if (request.authorization !== undefined)
        perToken.set(request.authorization, (perToken.get(request.authorization) ?? 0) + 1);
    }
    expect([...perToken.values()].every((count) => count === 2)).toBe(true);
    expect(as.authorizationRequests.length).toBeLessThanOrEqual(2);
  });

  it('refreshes with a proof of the same key, and the refreshed tokens stay bound to it', async () => {
    const { as, rs } = await stack();
    const { fetch, store } = client(rs);
    await fetch(rs.url, rpc('tools/list'));
    const [before] = await store.findTokens(rs.url);
    as.expireAccessTokens();

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    const [after] = await store.findTokens(rs.url);
    const jkt = await calculateJwkThumbprint(before?.proofKey as JWK, 'sha256');
    const [refresh] = as.grants('refresh_token');
    expect(await thumbprintOf(refresh?.dpop)).toBe(jkt);
    expect(claims(refresh?.dpop)).toMatchObject({ htm: 'POST', htu: `${as.issuer}/token` });
    expect(after?.proofKey).toEqual(before?.proofKey);
    expect(after?.tokenType).toBe('DPoP');
    expect(after?.accessToken).not.toBe(before?.accessToken);
    expect(await thumbprintOf(rs.requests.at(-1)?.dpop)).toBe(jkt);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('steps up with a new authorization and a new key, and retries with the stepped-up DPoP token', async () => {
    const { as, rs } = await stack();
    const { fetch, store } = client(rs);
    await fetch(rs.url, rpc('tools/list'));
    const [before] = await store.findTokens(rs.url);

    const response = await fetch(rs.url, rpc('tools/call', { name: 'notes_create' }));

    expect(response.status).toBe(200);
    const [after] = await store.findTokens(rs.url);
    expect(as.authorizationRequests.map((request) => request.get('scope'))).toEqual([
      'notes:read offline_access',
      'notes:read notes:write offline_access',
    ]);
    const keys = await Promise.all(
      [before, after].map((tokens) => calculateJwkThumbprint(tokens?.proofKey as JWK, 'sha256')),
    );
    expect(keys[0]).not.toBe(keys[1]);
    expect(as.authorizationRequests.map((request) => request.get('dpop_jkt'))).toEqual(keys);
    expect(rs.requests.map((request) => request.status)).toEqual([401, 200, 403, 200]);
    expect(await thumbprintOf(rs.requests.at(-1)?.dpop)).toBe(keys[1]);
  });

  it('sends Bearer tokens and no proof when switched off (proofOfPossession: false), even where DPoP is offered', async () => {
    const { as, rs } = await stack();
    const { fetch, store } = client(rs, { proofOfPossession: false });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.authorizationRequests[0]?.has('dpop_jkt')).toBe(false);
    expect(as.tokenRequests.every((request) => request.dpop === undefined)).toBe(true);
    expect(rs.requests.every((request) => request.dpop === undefined)).toBe(true);
    expect(rs.requests[1]?.authorization).toMatch(/^Bearer /);
    const [tokens] = await store.findTokens(rs.url);
    expect(tokens?.proofKey).toBeUndefined();
    expect(tokens?.tokenType).toBe('Bearer');
  });

  it('sends Bearer tokens when the authorization server does not offer DPoP', async () => {
    const { as, rs } = await stack({ asDpop: false });
    const { fetch, store } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.authorizationRequests[0]?.has('dpop_jkt')).toBe(false);
    expect(as.tokenRequests.every((request) => request.dpop === undefined)).toBe(true);
    expect(rs.requests[1]?.authorization).toMatch(/^Bearer /);
    expect((await store.findTokens(rs.url))[0]?.proofKey).toBeUndefined();
  });

  it('uses a token the server issued as Bearer despite the proof as a Bearer token (RFC 9449 5.1)', async () => {
    const { as, rs } = await stack({ asDpop: { issueBearer: true } });
    const { fetch, store } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.grants('authorization_code')[0]?.dpop).toEqual(expect.any(String));
    expect(rs.requests[1]?.authorization).toMatch(/^Bearer /);
    expect(rs.requests[1]?.dpop).toBeUndefined();
    expect(await fetch.tokens()).toMatchObject({ tokenType: 'Bearer', keyBound: false });
    // The key stays with the tokens: the refresh proves it again.
    expect((await store.findTokens(rs.url))[0]?.proofKey).toBeDefined();
  });

  it('keeps the key sealed in the file store with the tokens, and reuses it after a reload', async () => {
    const { as, rs } = await stack();
    const dir = await mkdtemp(join(tmpdir(), 'portcullis-dpop-'));
    directories.push(dir);
    const env = {};
    const first = client(rs, { store: new FileTokenStore({ path: join(dir, 'tokens.json'), env }) });
    await first.fetch(rs.url, rpc('tools/list'));
    const [stored] = await new FileTokenStore({ path: join(dir, 'tokens.json'), env }).findTokens(rs.url);
    const key = stored?.proofKey as { d: string; x: string };

    const file = await readFile(join(dir, 'tokens.json'), 'utf8');
    expect(file).not.toContain(key.d);
    expect(file).not.toContain(key.x);
    expect(file).not.toContain(stored?.accessToken);

    const reloaded = client(rs, { store: new FileTokenStore({ path: join(dir, 'tokens.json'), env }) });
    expect((await reloaded.fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(await thumbprintOf(rs.requests.at(-1)?.dpop)).toBe(
      await calculateJwkThumbprint(stored?.proofKey as JWK, 'sha256'),
    );
  });

  it('replaces stored DPoP-bound tokens by a new Bearer authorization once proof of possession is switched off', async () => {
    const { as, rs } = await stack();
    const { fetch, store } = client(rs);
    await fetch(rs.url, rpc('tools/list'));

    const bearer = client(rs, { store, proofOfPossession: false });
    expect((await bearer.fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(rs.requests.map((request) => request.authorization?.split(' ')[0])).toEqual([
      undefined,
      'DPoP',
      undefined,
      'Bearer',
    ]);
    // No refresh without the proof its bound refresh token needs: a new authorization instead.
    expect(as.grants('refresh_token')).toHaveLength(0);
    expect(as.authorizationRequests).toHaveLength(2);
    expect(await bearer.fetch.tokens()).toMatchObject({ tokenType: 'Bearer', keyBound: false });
  });

  it('drops the key with the tokens on sign-out', async () => {
    const { rs } = await stack();
    const { fetch, store } = client(rs);
    await fetch(rs.url, rpc('tools/list'));

    expect(await fetch.signOut()).toBe(1);

    expect(await store.listTokens()).toEqual([]);
  });

  it('proves possession in the token requests of a grant strategy (client credentials)', async () => {
    const { as, rs } = await stack({ as: { clientCredentials: true } });
    const { fetch, store } = client(rs, {
      extensions: ExtensionRegistry.compose([
        clientCredentialsExtension,
        dpopExtension({ authorizationServer: false, resourceServer: false }),
      ]),
      grantStrategy: CLIENT_CREDENTIALS_STRATEGY,
      clientCredentials: { clientId: 'machine', clientSecret: 'machine-secret', issuer: as.issuer },
    });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    const [request] = as.grants('client_credentials');
    expect(claims(request?.dpop)).toMatchObject({ htm: 'POST', htu: `${as.issuer}/token` });
    const [tokens] = await store.findTokens(rs.url);
    expect(tokens?.tokenType).toBe('DPoP');
    expect(await thumbprintOf(rs.requests.at(-1)?.dpop)).toBe(
      await calculateJwkThumbprint(tokens?.proofKey as JWK, 'sha256'),
    );
    expect(as.authorizationRequests).toHaveLength(0);
  });

  it('reads resource_metadata from a resource that challenges with the DPoP scheme only', async () => {
    const { rs } = await stack({ rs: { challengeSchemes: ['DPoP'] } });
    const { fetch } = client(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(rs.metadataRequests).toEqual(['/.well-known/oauth-protected-resource/mcp']);
  });
});
