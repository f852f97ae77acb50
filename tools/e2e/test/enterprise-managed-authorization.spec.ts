// MCP SEP-990 (io.modelcontextprotocol/enterprise-managed-authorization,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// end to end: an enterprise identity provider on loopback (RFC 8693 token exchange: the user's ID token for an
// ID-JAG), the built authorization server trusting it (EXTENSIONS=enterprise-managed-authorization, ENTERPRISE_IDPS),
// a client registered with `portcullis-admin clients create --grant urn:ietf:params:oauth:grant-type:jwt-bearer`,
// the real protected server, and the client SDK obtaining a token with no browser.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions, MemoryTokenStore } from '@portcullis/client';
import {
  enterpriseManagedAuthorization,
  ID_JAG_STRATEGY,
  ID_JAG_TOKEN_TYPE,
  TOKEN_EXCHANGE_GRANT,
} from '@portcullis/extension-enterprise-managed-authorization';
import { ExtensionRegistry } from '@portcullis/extensions';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { text } from './support/client-helpers.js';
import { startStack, type Stack } from './support/stack.js';

/** A minimal enterprise IdP: exchanges the ID token it issued for an ID-JAG for the requested audience. */
async function startIdp(
  key: CryptoKey,
  clientIdFor: () => string,
): Promise<{ url: string; exchanges: number; server: Server }> {
  const idp = { url: '', exchanges: 0, server: undefined as unknown as Server };
  idp.server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', async () => {
      const form = new URLSearchParams(body);
      if (
        request.url !== '/token' ||
        form.get('grant_type') !== TOKEN_EXCHANGE_GRANT ||
        form.get('subject_token') !== 'alice-id-token'
      ) {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_grant' }));
        return;
      }
      idp.exchanges += 1;
      const idJag = await new SignJWT({
        client_id: clientIdFor(),
        resource: form.get('resource'),
        scope: 'notes:read notes:write',
      })
        .setProtectedHeader({ alg: 'ES256', kid: 'idp', typ: 'oauth-id-jag+jwt' })
        .setIssuer(idp.url)
        .setAudience(form.get('audience') ?? '')
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .setJti(crypto.randomUUID())
        .sign(key);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A' }),
        );
    });
  });
  await new Promise<void>((resolve) => idp.server.listen(0, '127.0.0.1', resolve));
  idp.url = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}`;
  return idp;
}

describe('enterprise-managed authorization end to end (SDK against the real servers and a loopback IdP)', () => {
  let stack: Stack;
  let idp: Awaited<ReturnType<typeof startIdp>>;
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    idp = await startIdp(privateKey, () => client.client_id);
    const jwk = { ...(await exportJWK(publicKey)), kid: 'idp', alg: 'ES256' };
    stack = await startStack({
      authorizationServerEnv: {
        EXTENSIONS: 'enterprise-managed-authorization',
        ENTERPRISE_IDPS: JSON.stringify([{ issuer: idp.url, jwks: { keys: [jwk] } }]),
      },
      before: async (admin) => {
        const created = await admin(
          'clients',
          'create',
          '--name',
          'Enterprise agent',
          '--grant',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
          '--json',
        );
        expect(created.code).toBe(0);
        client = JSON.parse(created.stdout) as typeof client;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => idp?.server.close(resolve));
  });

  it('exchanges the ID token for an ID-JAG, redeems it, and calls tools as the enterprise user', async () => {
    const store = new MemoryTokenStore();
    const extensions = ExtensionRegistry.compose([
      enterpriseManagedAuthorization({
        client: { idToken: 'alice-id-token', idpTokenEndpoint: `${idp.url}/token` },
      }),
    ]);
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      clientCredentials: {
        clientId: client.client_id,
        clientSecret: client.client_secret,
        issuer: stack.issuer,
      },
      extensions,
      grantStrategy: ID_JAG_STRATEGY,
      store,
    });
    const mcp = new Client({ name: 'portcullis-e2e-enterprise', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(stack.resource), mcpTransportOptions(authorizedFetch)),
    );
    const created = await mcp.callTool({
      name: 'notes_create',
      arguments: { title: 'from the enterprise', body: '' },
    });
    expect(created.isError).toBeFalsy();
    expect(text(await mcp.callTool({ name: 'notes_list', arguments: {} }))).toContain('from the enterprise');
    await mcp.close();

    expect(idp.exchanges).toBe(1);
    const [tokens] = await store.findTokens(stack.resource);
    expect(tokens?.refreshToken).toBeUndefined();
    expect(decodeJwt(tokens!.accessToken)).toMatchObject({
      iss: stack.issuer,
      sub: `${idp.url}#alice`,
      aud: stack.resource,
      client_id: client.client_id,
    });
  });
});
