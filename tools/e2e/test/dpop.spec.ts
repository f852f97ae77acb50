import { FormUserAgent } from '@portcullis/testing';
// DPoP (RFC 9449, MCP SEP-1932) end to end: the built authorization server and protected server with
// EXTENSIONS=dpop and server nonces on both (DPOP_NONCE=on), and the client SDK with the DPoP client composed,
// through the real login and consent pages: the authorization code flow with a key of the client's own, tool calls
// with `Authorization: DPoP` and a proof each, a step-up, and a refresh, all bound to the authorization's key.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  mcpTransportOptions,
  MemoryTokenStore,
  type AuthorizedFetch,
} from '@portcullis/client';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { text } from './support/client-helpers.js';
import { startStack, type Stack } from './support/stack.js';

const DPOP_CLIENT = ExtensionRegistry.compose([
  dpopExtension({ authorizationServer: false, resourceServer: false }),
]);

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly authorization: string | null;
  readonly dpop: string | null;
  readonly grantType: string | null;
  readonly status: number;
  readonly nonce: string | null;
}

/** A fetch that records what every request carried and how it was answered. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers);
    const body =
      typeof init?.body === 'string'
        ? init.body
        : init?.body instanceof URLSearchParams
          ? init.body.toString()
          : '';
    const response = await fetch(input, init);
    sent.push({
      url,
      method: init?.method ?? 'GET',
      authorization: headers.get('authorization'),
      dpop: headers.get('dpop'),
      grantType: new URL(url).pathname.endsWith('/token')
        ? new URLSearchParams(body).get('grant_type')
        : null,
      status: response.status,
      nonce: response.headers.get('dpop-nonce'),
    });
    return response;
  };
}

async function connect(authorizedFetch: AuthorizedFetch, resource: string): Promise<Client> {
  const client = new Client({ name: 'portcullis-e2e-dpop', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), mcpTransportOptions(authorizedFetch)),
  );
  return client;
}

describe('DPoP end to end (the SDK against the real servers with EXTENSIONS=dpop and nonces)', () => {
  let stack: Stack;
  let clientId: string;
  beforeAll(async () => {
    stack = await startStack({
      authorizationServerEnv: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on' },
      protectedServerEnv: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on' },
      before: async (admin) => {
        const created = await admin(
          'clients',
          'create',
          '--name',
          'E2E DPoP client',
          '--redirect-uri',
          'http://127.0.0.1/callback',
          '--json',
        );
        expect(created.code).toBe(0);
        clientId = (JSON.parse(created.stdout) as { client_id: string }).client_id;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('authorizes with a key of its own, calls tools with DPoP proofs, steps up and refreshes, all bound to its keys', async () => {
    let grantWrite = false;
    const userAgent = new FormUserAgent(stack.user, () => (grantWrite ? {} : { untick: ['notes:write'] }));
    const sent: Sent[] = [];
    const store = new MemoryTokenStore();
    let clockOffset = 0;
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent,
      clientCredentials: { clientId, issuer: stack.issuer },
      extensions: DPOP_CLIENT,
      store,
      fetch: recordingFetch(sent),
      now: () => Date.now() + clockOffset,
    });
    const tokenRequests = () => sent.filter((request) => request.grantType !== null);
    const resourceRequests = () => sent.filter((request) => request.url.startsWith(stack.resource));

    const mcp = await connect(authorizedFetch, stack.resource);
    const tools = await mcp.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('notes_create');

    // The metadata offers DPoP; the token endpoint asked for its nonce once, then bound the token to the key.
    const first = (await store.findTokens(stack.resource))[0];
    expect(first?.tokenType).toBe('DPoP');
    const firstJkt = await calculateJwkThumbprint(first?.proofKey as JWK, 'sha256');
    expect(decodeJwt(first?.accessToken ?? '')['cnf']).toEqual({ jkt: firstJkt });
    expect(tokenRequests().map((request) => [request.grantType, request.status])).toEqual([
      ['authorization_code', 400],
      ['authorization_code', 200],
    ]);
    expect(tokenRequests().every((request) => request.dpop !== null)).toBe(true);

    grantWrite = true;
    const created = await mcp.callTool({ name: 'notes_create', arguments: { title: 'bound', body: 'dpop' } });
    expect(created.isError).toBeFalsy();
    expect(userAgent.shown).toEqual({ login: 1, consent: 2, confirm: 0 });
    const stepped = (await store.findTokens(stack.resource))[0];
    const steppedJkt = await calculateJwkThumbprint(stepped?.proofKey as JWK, 'sha256');
    expect(steppedJkt).not.toBe(firstJkt);
    expect(decodeJwt(stepped?.accessToken ?? '')['cnf']).toEqual({ jkt: steppedJkt });
    expect(stepped?.scope).toEqual(expect.arrayContaining(['notes:read', 'notes:write']));

    // Past the access token's expiry: one refresh, proving the stepped-up authorization's key.
    clockOffset = 3_600_000;
    const listed = await mcp.callTool({ name: 'notes_list', arguments: {} });
    expect(text(listed)).toContain('bound');
    const refreshes = tokenRequests().filter((request) => request.grantType === 'refresh_token');
    expect(refreshes.filter((request) => request.status === 200)).toHaveLength(1);
    const refresh = refreshes.at(-1);
    expect(
      await calculateJwkThumbprint(decodeProtectedHeader(refresh?.dpop ?? '').jwk as JWK, 'sha256'),
    ).toBe(steppedJkt);
    const refreshed = (await store.findTokens(stack.resource))[0];
    expect(refreshed?.accessToken).not.toBe(stepped?.accessToken);
    expect(decodeJwt(refreshed?.accessToken ?? '')['cnf']).toEqual({ jkt: steppedJkt });

    // Every request that carried a token carried it with the DPoP scheme and a fresh proof of that request.
    const authorized = resourceRequests().filter((request) => request.authorization !== null);
    expect(authorized.length).toBeGreaterThan(3);
    expect(authorized.every((request) => request.authorization?.startsWith('DPoP ') === true)).toBe(true);
    const proofs = authorized.map((request) => decodeJwt(request.dpop ?? ''));
    expect(new Set(proofs.map((proof) => proof['jti'])).size).toBe(proofs.length);
    expect(proofs.every((proof, i) => proof['htm'] === authorized[i]?.method)).toBe(true);
    // The resource's nonce was asked for once per token at most, never as a new authorization.
    expect(resourceRequests().some((request) => request.status === 401 && request.nonce !== null)).toBe(true);
    expect(await authorizedFetch.tokens()).toMatchObject({ tokenType: 'DPoP', keyBound: true });
    await mcp.close();
  });

  it('sends Bearer tokens when the client opts out, and the servers still accept them (DPoP not required)', async () => {
    const sent: Sent[] = [];
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent: new FormUserAgent(stack.user),
      clientCredentials: { clientId, issuer: stack.issuer },
      extensions: DPOP_CLIENT,
      proofOfPossession: false,
      fetch: recordingFetch(sent),
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    const listed = await mcp.callTool({ name: 'notes_list', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(sent.every((request) => request.dpop === null)).toBe(true);
    const authorized = sent.filter(
      (request) => request.url.startsWith(stack.resource) && request.authorization,
    );
    expect(authorized.every((request) => request.authorization?.startsWith('Bearer ') === true)).toBe(true);
    expect(await authorizedFetch.tokens()).toMatchObject({ tokenType: 'Bearer', keyBound: false });
    await mcp.close();
  });
});
