// MCP SEP-990 (io.modelcontextprotocol/enterprise-managed-authorization,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// end to end: an enterprise identity provider on loopback (RFC 8693 token exchange: the user's ID token for an
// ID-JAG), the built authorization server trusting it (EXTENSIONS=enterprise-managed-authorization, ENTERPRISE_IDPS),
// a client registered with `portcullis-admin clients create --grant urn:ietf:params:oauth:grant-type:jwt-bearer`,
// the real protected server, and the client SDK obtaining a token with no browser.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions, MemoryTokenStore } from '@portcullis/client';
import {
  enterpriseManagedAuthorization,
  ID_JAG_STRATEGY,
} from '@portcullis/extension-enterprise-managed-authorization';
import { ExtensionRegistry } from '@portcullis/extensions';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { text } from './support/client-helpers.js';
import { startLoopbackIdp, type LoopbackIdp } from './support/loopback-idp.js';
import { startStack, type Stack } from './support/stack.js';

describe('enterprise-managed authorization end to end (SDK against the real servers and a loopback IdP)', () => {
  let stack: Stack;
  let idp: LoopbackIdp;
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    idp = await startLoopbackIdp(privateKey, () => client.client_id);
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
