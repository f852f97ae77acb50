import { FormUserAgent } from '@portcullis/testing';
// private_key_jwt (RFC 7523 2.2 and 3) end to end: the built authorization server verifies the client SDK's
// assertions, for a client pre-registered with `portcullis-admin clients create --auth private_key_jwt --jwks-file`
// and for one the SDK registers dynamically with its public `jwks` (RFC 7591 2); both the code redemption and the
// refresh are authenticated that way, and an assertion signed with another key is refused.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  findPortcullisError,
  importClientAssertionKey,
  mcpTransportOptions,
  MemoryTokenStore,
  type AuthorizedFetch,
  type ClientAssertionKey,
} from '@portcullis/client';
import { exportPKCS8, generateKeyPair } from 'jose';
import { text } from './support/client-helpers.js';
import { startStack, type Stack } from './support/stack.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

async function connect(authorizedFetch: AuthorizedFetch, resource: string): Promise<Client> {
  const client = new Client({ name: 'portcullis-e2e-keyed', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), mcpTransportOptions(authorizedFetch)),
  );
  return client;
}

async function newKey(kid: string): Promise<ClientAssertionKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return importClientAssertionKey(await exportPKCS8(privateKey), { keyId: kid });
}

/** Records how each token request authenticated the client, by grant type. */
function recordingFetch(seen: string[]): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.endsWith('/token') && init?.body !== undefined && init.body !== null) {
      const body = new URLSearchParams(init.body as string | URLSearchParams);
      const how = body.get('client_assertion_type') === ASSERTION_TYPE ? 'private_key_jwt' : 'other';
      seen.push(`${body.get('grant_type') ?? '?'} ${how}`);
    }
    return fetch(input, init);
  };
}

describe('private_key_jwt: the client SDK against the real authorization server', () => {
  let stack: Stack;
  let dir: string;
  let key: ClientAssertionKey;
  let clientId: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-pkj-'));
    key = await newKey('e2e-key-1');
    const jwksFile = join(dir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify({ keys: [key.publicJwk] }));
    stack = await startStack({
      before: async (admin) => {
        const created = await admin(
          'clients',
          'create',
          '--name',
          'Keyed client',
          '--redirect-uri',
          'http://127.0.0.1/callback',
          '--auth',
          'private_key_jwt',
          '--jwks-file',
          jwksFile,
          '--json',
        );
        expect(created.code).toBe(0);
        clientId = (JSON.parse(created.stdout) as { client_id: string }).client_id;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a pre-registered client redeems the code and refreshes with assertions the server verifies', async () => {
    const seen: string[] = [];
    let clockOffset = 0;
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent: new FormUserAgent(stack.user),
      clientCredentials: { clientId, issuer: stack.issuer, privateKey: key },
      fetch: recordingFetch(seen),
      now: () => Date.now() + clockOffset,
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    expect(text(await mcp.callTool({ name: 'notes_list', arguments: {} }))).toBeDefined();
    // Past the access token's expiry: the next call refreshes, authenticated by a new assertion.
    clockOffset = 3_600_000;
    expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
    await mcp.close();

    expect(seen).toEqual(['authorization_code private_key_jwt', 'refresh_token private_key_jwt']);
    expect(await authorizedFetch.tokens()).toMatchObject({ clientId, issuer: stack.issuer });
  });

  it('registers dynamically with its public key and authenticates with it', async () => {
    const seen: string[] = [];
    const store = new MemoryTokenStore();
    const registrationKey = await newKey('e2e-key-2');
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent: new FormUserAgent(stack.user),
      clientRegistration: { clientName: 'E2E keyed registration', privateKey: registrationKey },
      store,
      fetch: recordingFetch(seen),
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
    await mcp.close();

    expect(seen).toEqual(['authorization_code private_key_jwt']);
    expect(await store.getClient(stack.issuer)).toMatchObject({
      clientId: expect.stringMatching(/^dcr_/),
      tokenEndpointAuthMethod: 'private_key_jwt',
      keyThumbprint: registrationKey.thumbprint,
    });
  });

  it('an assertion signed with another key is refused with invalid_client, and no token is stored', async () => {
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent: new FormUserAgent(stack.user),
      clientCredentials: { clientId, issuer: stack.issuer, privateKey: await newKey('e2e-key-1') },
    });
    const outcome = await connect(authorizedFetch, stack.resource).then(
      (client) => client.close(),
      (error: unknown) => error,
    );
    expect(findPortcullisError(outcome)?.code).toBe('token_request_failed');
    expect(findPortcullisError(outcome)?.authorizationServerError?.error).toBe('invalid_client');
    expect(await authorizedFetch.tokens()).toBeUndefined();
  });
});
