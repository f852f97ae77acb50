import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTokenStore } from './file-token-store.js';
import { MemoryTokenStore } from './memory-token-store.js';
import type { StoredTokenSet, TokenStore } from './token-store.js';

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

async function fileStore(): Promise<TokenStore> {
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-store-'));
  directories.push(directory);
  return new FileTokenStore({ path: join(directory, 'tokens.json'), env: {} });
}

function tokens(overrides: Partial<StoredTokenSet> = {}): StoredTokenSet {
  return {
    issuer: 'https://as.example',
    resource: 'https://mcp.example/mcp',
    clientId: 'client-a',
    resourceIndicator: 'https://mcp.example/mcp',
    accessToken: 'access',
    tokenType: 'Bearer',
    refreshToken: 'refresh',
    expiresAt: 2_000,
    scope: ['a'],
    requestedScope: ['a'],
    obtainedAt: 1_000,
    ...overrides,
  };
}

describe.each([
  ['MemoryTokenStore', async () => new MemoryTokenStore()],
  ['FileTokenStore', fileStore],
])('%s', (_, create) => {
  it('keys token sets by issuer, resource and client ID, replacing only the same key', async () => {
    const store = await create();
    await store.saveTokens(tokens());
    await store.saveTokens(tokens({ clientId: 'client-b', obtainedAt: 3_000 }));
    await store.saveTokens(tokens({ accessToken: 'access-2' }));

    const found = await store.findTokens('https://mcp.example/mcp');
    expect(found.map((entry) => [entry.clientId, entry.accessToken])).toEqual([
      ['client-b', 'access'],
      ['client-a', 'access-2'],
    ]);
    expect(await store.findTokens('https://other.example/mcp')).toEqual([]);
  });

  it('deletes by any combination of key fields', async () => {
    const store = await create();
    await store.saveTokens(tokens());
    await store.saveTokens(tokens({ issuer: 'https://as2.example' }));
    await store.saveTokens(tokens({ resource: 'https://other.example/mcp' }));

    expect(await store.deleteTokens({ issuer: 'https://as2.example' })).toBe(1);
    expect(await store.deleteTokens({ resource: 'https://mcp.example/mcp' })).toBe(1);
    expect((await store.listTokens()).map((entry) => entry.resource)).toEqual(['https://other.example/mcp']);
    expect(await store.deleteTokens({})).toBe(1);
    expect(await store.listTokens()).toEqual([]);
  });

  it('keeps client credentials per issuer', async () => {
    const store = await create();
    const client = {
      issuer: 'https://as.example',
      clientId: 'c1',
      tokenEndpointAuthMethod: 'none' as const,
      redirectUris: ['http://127.0.0.1/callback'],
      registeredAt: 1,
    };
    await store.saveClient(client);
    await store.saveClient({ ...client, issuer: 'https://as2.example', clientId: 'c2' });
    await store.saveClient({ ...client, clientId: 'c3' });

    expect((await store.getClient('https://as.example'))?.clientId).toBe('c3');
    expect((await store.getClient('https://as2.example'))?.clientId).toBe('c2');
    await store.deleteClient('https://as.example');
    expect(await store.getClient('https://as.example')).toBeUndefined();
  });

  it('keeps authorization server metadata per issuer, replacing what was kept for the same one', async () => {
    const store = await create();
    const kept = {
      issuer: 'https://as.example',
      url: 'https://as.example/.well-known/oauth-authorization-server',
      document: { issuer: 'https://as.example', token_endpoint: 'https://as.example/token' },
      fetchedAt: 1_000,
      freshUntil: 2_000,
    };
    await store.saveServerMetadata?.(kept);
    await store.saveServerMetadata?.({ ...kept, issuer: 'https://as2.example' });
    await store.saveServerMetadata?.({ ...kept, freshUntil: 3_000 });

    expect(await store.getServerMetadata?.('https://as.example')).toEqual({ ...kept, freshUntil: 3_000 });
    expect((await store.getServerMetadata?.('https://as2.example'))?.issuer).toBe('https://as2.example');
    expect(await store.getServerMetadata?.('https://as3.example')).toBeUndefined();
  });

  it('keeps the proof-of-possession key with its token set and deletes it with the tokens (RFC 9449)', async () => {
    const store = await create();
    const proofKey = { kty: 'EC', crv: 'P-256', x: 'x-value', y: 'y-value', d: 'd-value', alg: 'ES256' };
    await store.saveTokens(tokens({ tokenType: 'DPoP', proofKey }));

    expect((await store.findTokens('https://mcp.example/mcp'))[0]?.proofKey).toEqual(proofKey);
    await store.deleteTokens({ resource: 'https://mcp.example/mcp' });
    expect(await store.listTokens()).toEqual([]);
  });

  it('loses no write when many saves run at once', async () => {
    const store = await create();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.saveTokens(tokens({ clientId: `client-${i}`, obtainedAt: i })),
      ),
    );
    expect(await store.listTokens()).toHaveLength(20);
  });
});
