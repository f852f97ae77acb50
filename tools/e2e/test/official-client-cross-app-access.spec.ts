// Interop: the official MCP TypeScript client (@modelcontextprotocol/client 2.4.0) with its own
// CrossAppAccessProvider (MCP SEP-990, io.modelcontextprotocol/enterprise-managed-authorization,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// against the built authorization server (EXTENSIONS=enterprise-managed-authorization, ENTERPRISE_IDPS naming a
// loopback IdP) and the real protected server. The provider discovers the authorization server from the protected
// server's 401 and its Protected Resource Metadata (RFC 9728), asks its `assertion` callback for an ID-JAG (here:
// an RFC 8693 token exchange of the user's ID token at the loopback IdP), and redeems it at our token endpoint with
// the RFC 7523 2.1 jwt-bearer grant, authenticating with client_secret_basic (RFC 6749 2.3.1).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client,
  CrossAppAccessProvider,
  StreamableHTTPClientTransport,
  type AssertionCallback,
  type CrossAppAccessContext,
  type FetchLike,
} from '@modelcontextprotocol/client';
import {
  ID_JAG_TOKEN_TYPE,
  ID_TOKEN_TYPE,
  JWT_BEARER_GRANT,
  TOKEN_EXCHANGE_GRANT,
} from '@portcullis/extension-enterprise-managed-authorization';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { text } from './support/client-helpers.js';
import { startLoopbackIdp, type LoopbackIdp } from './support/loopback-idp.js';
import { startStack, type Stack } from './support/stack.js';

/** One request the official client made through the transport's fetch, with what came back. */
interface Sent {
  url: string;
  authorization: string | null;
  status: number;
  /** The form of a token request, and the JSON it was answered with. */
  form?: URLSearchParams;
  answer?: Record<string, unknown>;
}

describe("the official MCP client's CrossAppAccessProvider against our servers and a loopback IdP", () => {
  let stack: Stack;
  let idp: LoopbackIdp;
  let tokenEndpoint: string;
  let agent: { client_id: string; client_secret: string };
  let otherAgent: { client_id: string; client_secret: string };
  /** The client the IdP names in the ID-JAGs it issues. */
  let idJagClientId: () => string;

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    idp = await startLoopbackIdp(privateKey, () => idJagClientId());
    const jwk = { ...(await exportJWK(publicKey)), kid: 'idp', alg: 'ES256' };
    stack = await startStack({
      authorizationServerEnv: {
        EXTENSIONS: 'enterprise-managed-authorization',
        ENTERPRISE_IDPS: JSON.stringify([{ issuer: idp.url, jwks: { keys: [jwk] } }]),
      },
      before: async (admin) => {
        const register = async (name: string) => {
          const created = await admin(
            'clients',
            'create',
            '--name',
            name,
            '--grant',
            JWT_BEARER_GRANT,
            '--json',
          );
          expect(created.code).toBe(0);
          return JSON.parse(created.stdout) as typeof agent;
        };
        agent = await register('Official cross-app access agent');
        otherAgent = await register('Another enterprise agent');
      },
    });
    const metadata = (await (
      await fetch(`${stack.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as { token_endpoint: string };
    tokenEndpoint = metadata.token_endpoint;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => idp?.server.close(resolve));
  });

  /**
   * The provider's `assertion` callback: RFC 8693 2.1 token exchange of the user's ID token at the IdP, for the
   * authorization server (`audience`) and resource the provider discovered; records each context it was given.
   */
  function idJagFromIdp(contexts: CrossAppAccessContext[], issued: string[]): AssertionCallback {
    return async (context) => {
      contexts.push(context);
      const response = await fetch(`${idp.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: TOKEN_EXCHANGE_GRANT,
          requested_token_type: ID_JAG_TOKEN_TYPE,
          subject_token: 'alice-id-token',
          subject_token_type: ID_TOKEN_TYPE,
          audience: context.authorizationServerUrl,
          resource: context.resourceUrl,
          ...(context.scope ? { scope: context.scope } : {}),
        }),
      });
      expect(response.status).toBe(200);
      const exchanged = (await response.json()) as { access_token: string; issued_token_type: string };
      expect(exchanged.issued_token_type).toBe(ID_JAG_TOKEN_TYPE);
      issued.push(exchanged.access_token);
      return exchanged.access_token;
    };
  }

  /** The transport's fetch, recording every request and reading the answers of the token endpoint. */
  function recordingFetch(sent: Sent[]): FetchLike {
    return async (url, init) => {
      const response = await fetch(url, init);
      const entry: Sent = {
        url: String(url),
        authorization: new Headers(init?.headers).get('authorization'),
        status: response.status,
      };
      if (entry.url === tokenEndpoint) {
        entry.form = new URLSearchParams(init?.body as URLSearchParams | string);
        entry.answer = (await response.clone().json()) as Record<string, unknown>;
      }
      sent.push(entry);
      return response;
    };
  }

  it('redeems the ID-JAG from the IdP at our token endpoint and calls tools as the enterprise user', async () => {
    idJagClientId = () => agent.client_id;
    const exchangesBefore = idp.exchanges;
    const contexts: CrossAppAccessContext[] = [];
    const issued: string[] = [];
    const sent: Sent[] = [];
    const provider = new CrossAppAccessProvider({
      assertion: idJagFromIdp(contexts, issued),
      clientId: agent.client_id,
      clientSecret: agent.client_secret,
      expectedIssuer: stack.issuer,
    });
    const mcp = new Client({ name: 'official-cross-app-access', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(stack.resource), {
        authProvider: provider,
        fetch: recordingFetch(sent),
      }),
    );
    try {
      const created = await mcp.callTool({
        name: 'notes_create',
        arguments: { title: 'via cross-app access', body: '' },
      });
      expect(created.isError).toBeFalsy();
      expect(text(await mcp.callTool({ name: 'notes_list', arguments: {} }))).toContain(
        'via cross-app access',
      );
    } finally {
      await mcp.close();
    }

    // The provider learned our issuer and resource from the 401 and the metadata, and asked for the ID-JAG once.
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({ authorizationServerUrl: stack.issuer, resourceUrl: stack.resource });
    expect(idp.exchanges - exchangesBefore).toBe(1);

    // One RFC 7523 2.1 token request with the ID-JAG as `assertion`, the RFC 8707 `resource`, client_secret_basic.
    const tokenRequests = sent.filter((entry) => entry.url === tokenEndpoint);
    expect(tokenRequests).toHaveLength(1);
    const [redemption] = tokenRequests;
    expect(redemption?.form?.get('grant_type')).toBe(JWT_BEARER_GRANT);
    expect(redemption?.form?.get('assertion')).toBe(issued[0]);
    expect(redemption?.form?.get('resource')).toBe(stack.resource);
    expect(redemption?.form?.has('client_secret')).toBe(false);
    expect(redemption?.authorization).toBe(
      `Basic ${Buffer.from(`${agent.client_id}:${agent.client_secret}`).toString('base64')}`,
    );
    expect(redemption?.status).toBe(200);
    expect(redemption?.answer).not.toHaveProperty('refresh_token');

    const tokens = provider.tokens();
    expect(tokens?.refresh_token).toBeUndefined();
    expect(decodeJwt(tokens!.access_token)).toMatchObject({
      iss: stack.issuer,
      sub: `${idp.url}#alice`,
      aud: stack.resource,
      client_id: agent.client_id,
    });
  });

  it('an ID-JAG issued for another client gets invalid_grant, no token, and no tool call', async () => {
    idJagClientId = () => otherAgent.client_id;
    const exchangesBefore = idp.exchanges;
    const contexts: CrossAppAccessContext[] = [];
    const issued: string[] = [];
    const sent: Sent[] = [];
    const provider = new CrossAppAccessProvider({
      assertion: idJagFromIdp(contexts, issued),
      clientId: agent.client_id,
      clientSecret: agent.client_secret,
      expectedIssuer: stack.issuer,
    });
    const mcp = new Client({ name: 'official-cross-app-access', version: '1.0.0' });
    const connected = mcp.connect(
      new StreamableHTTPClientTransport(new URL(stack.resource), {
        authProvider: provider,
        fetch: recordingFetch(sent),
      }),
    );
    await expect(connected).rejects.toMatchObject({ code: 'invalid_grant' });
    await mcp.close();

    // The IdP did issue ID-JAGs (naming the other client); each redemption at our token endpoint issued nothing.
    expect(issued.length).toBeGreaterThan(0);
    expect(idp.exchanges - exchangesBefore).toBe(issued.length);
    for (const idJag of issued) expect(decodeJwt(idJag).client_id).toBe(otherAgent.client_id);
    const tokenRequests = sent.filter((entry) => entry.url === tokenEndpoint);
    expect(tokenRequests).toHaveLength(issued.length);
    for (const redemption of tokenRequests) {
      expect(redemption.form?.get('grant_type')).toBe(JWT_BEARER_GRANT);
      expect(redemption.status).toBe(400);
      expect(redemption.answer).toMatchObject({ error: 'invalid_grant' });
      expect(redemption.answer).not.toHaveProperty('access_token');
      expect(redemption.answer).not.toHaveProperty('refresh_token');
    }
    expect(provider.tokens()).toBeUndefined();
    // Nothing reached the protected server with a token.
    const toResource = sent.filter((entry) => entry.url === stack.resource);
    expect(toResource.length).toBeGreaterThan(0);
    for (const request of toResource) {
      expect(request.authorization).toBeNull();
      expect(request.status).toBe(401);
    }
  });
});
