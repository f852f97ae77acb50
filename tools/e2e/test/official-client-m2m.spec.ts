// Interop: the official MCP TypeScript client (@modelcontextprotocol/client 2.4.0) with its own machine-to-machine
// providers, ClientCredentialsProvider (client_secret_basic) and PrivateKeyJwtProvider (private_key_jwt, RFC 7523
// 2.2), against the built authorization server (EXTENSIONS=client-credentials) and the real protected server. The
// providers discover the authorization server from the protected server's 401 and its Protected Resource Metadata,
// obtain a token with the client credentials grant (MCP SEP-1046), and call a tool with it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client,
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  StreamableHTTPClientTransport,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { startStack, type Stack } from './support/stack.js';

describe("the official MCP client's machine-to-machine providers against our servers", () => {
  let stack: Stack;
  let secretClient: { client_id: string; client_secret: string };
  let keyClient: { client_id: string };
  let privateKeyPem: string;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    privateKeyPem = await exportPKCS8(privateKey);
    const jwksFile = join(mkdtempSync(join(tmpdir(), 'portcullis-m2m-')), 'client.jwks');
    writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), alg: 'ES256' }] }));
    stack = await startStack({
      authorizationServerEnv: { EXTENSIONS: 'client-credentials' },
      before: async (admin) => {
        const secret = await admin(
          'clients',
          'create',
          '--name',
          'Official M2M',
          '--grant',
          'client_credentials',
          '--json',
        );
        expect(secret.code).toBe(0);
        secretClient = JSON.parse(secret.stdout) as typeof secretClient;
        const keyed = await admin(
          'clients',
          'create',
          '--name',
          'Official M2M with a key',
          '--grant',
          'client_credentials',
          '--auth',
          'private_key_jwt',
          '--jwks-file',
          jwksFile,
          '--json',
        );
        expect(keyed.code).toBe(0);
        keyClient = JSON.parse(keyed.stdout) as typeof keyClient;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  async function callTool(authProvider: OAuthClientProvider): Promise<string> {
    const client = new Client({ name: 'official-m2m', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(stack.resource), { authProvider }));
    try {
      const tools = await client.listTools();
      expect(tools.tools.length).toBeGreaterThan(0);
      const listed = await client.callTool({ name: 'notes_list', arguments: {} });
      expect(listed.isError).toBeFalsy();
      return JSON.stringify(listed.content);
    } finally {
      await client.close();
    }
  }

  it('ClientCredentialsProvider (client_secret_basic) lists tools and calls one', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: secretClient.client_id,
      clientSecret: secretClient.client_secret,
      scope: 'notes:read',
      expectedIssuer: stack.issuer,
    });
    await expect(callTool(provider)).resolves.toBeDefined();
    expect(provider.tokens()?.access_token).toBeTruthy();
  });

  it('PrivateKeyJwtProvider (private_key_jwt) lists tools and calls one', async () => {
    const provider = new PrivateKeyJwtProvider({
      clientId: keyClient.client_id,
      privateKey: privateKeyPem,
      algorithm: 'ES256',
      jwtLifetimeSeconds: 60,
      scope: 'notes:read',
      expectedIssuer: stack.issuer,
    });
    await expect(callTool(provider)).resolves.toBeDefined();
    expect(provider.tokens()?.access_token).toBeTruthy();
  });

  it('a wrong secret gets no token and no tool call', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: secretClient.client_id,
      clientSecret: 'not-the-secret',
      scope: 'notes:read',
      expectedIssuer: stack.issuer,
    });
    await expect(callTool(provider)).rejects.toThrow();
    expect(provider.tokens()).toBeUndefined();
  });
});
