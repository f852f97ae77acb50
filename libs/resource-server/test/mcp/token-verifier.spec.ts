import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import { OAuthError as McpOAuthError, requireBearerAuth } from '@modelcontextprotocol/server';
import { parseWwwAuthenticate } from '@portcullis/protocol';
import {
  createSigningKey,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
} from '@portcullis/testing';
import { createTokenVerifier, type ResourceTokenVerifier } from '../../src/index.js';
import { bearer } from '../support/http.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const METADATA_URL = 'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp';
const INTROSPECTION_CLIENT = { id: 'rs', secret: 'rs-secret' };

const mcpRequest = (headers: Record<string, string>) => new Request(RESOURCE, { method: 'POST', headers });

/** The SDK's own gate, with our verifier: what an MCP server built on the SDK alone runs. */
function gate(verifier: ResourceTokenVerifier, requiredScopes: string[] = []) {
  return requireBearerAuth({
    verifier,
    requiredScopes,
    resourceMetadataUrl: verifier.resourceMetadataUrl,
    expectedResource: verifier.resource,
  });
}

async function refusal(
  result: unknown,
): Promise<{ status: number; challenge: Record<string, string>; body: unknown }> {
  if (!(result instanceof Response)) throw new Error('the request was accepted');
  const header = result.headers.get('www-authenticate');
  return {
    status: result.status,
    challenge: header ? (parseWwwAuthenticate(header)[0]?.params ?? {}) : {},
    body: await result.json(),
  };
}

describe('createTokenVerifier behind the MCP SDK’s requireBearerAuth', () => {
  let as: TestAuthorizationServer;
  let verifier: ResourceTokenVerifier;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({
      audience: RESOURCE,
      introspectionClient: INTROSPECTION_CLIENT,
    });
    verifier = createTokenVerifier({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      scopeHierarchy: { notes: ['notes:read', 'notes:write'] },
      tokens: {
        introspection: { clientId: INTROSPECTION_CLIENT.id, clientSecret: INTROSPECTION_CLIENT.secret },
      },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('accepts a token from the authorization server and describes it without the token', async () => {
    const token = await as.mint({ claims: { sub: 'alice', scope: 'notes:read' } });
    const auth = await gate(verifier, ['notes:read'])(mcpRequest(bearer(token)));
    if (auth instanceof Response) throw new Error(`refused: ${auth.status}`);
    expect(auth).toMatchObject({
      token: '',
      clientId: 'client-1',
      scopes: ['notes:read'],
      resourceMetadataUrl: METADATA_URL,
      extra: { subject: 'alice', issuer: as.issuer, validatedBy: 'jwt' },
    });
    expect(auth.resource?.href).toBe(new URL(RESOURCE).href);
    expect(typeof auth.expiresAt).toBe('number');
  });

  it('throws the SDK’s OAuthError invalid_token for a token meant for another resource', async () => {
    const token = await as.mint({ claims: { aud: 'http://127.0.0.1:9/other' } });
    const error = await verifier.verifyAccessToken(token).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpOAuthError);
    expect((error as McpOAuthError).code).toBe('invalid_token');
    const answer = await refusal(await gate(verifier)(mcpRequest(bearer(token))));
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatchObject({ error: 'invalid_token', resource_metadata: METADATA_URL });
  });

  it.each([
    ['from an issuer it does not trust', async () => as.mint({ claims: { iss: 'http://127.0.0.1:1' } })],
    ['signed by a key the issuer does not publish', async () => as.mint({ key: await createSigningKey() })],
    ['that has expired', async () => as.mint({ claims: { exp: Math.floor(Date.now() / 1000) - 3600 } })],
    ['that is not an access token (typ JWT)', async () => as.mint({ header: { typ: 'JWT' } })],
  ])('refuses a token %s with 401 invalid_token', async (_name, mint) => {
    const answer = await refusal(await gate(verifier)(mcpRequest(bearer(await mint()))));
    expect(answer.status).toBe(401);
    expect(answer.challenge['error']).toBe('invalid_token');
  });

  it('lets the SDK refuse a missing scope with 403 insufficient_scope, a broader scope of the hierarchy counting', async () => {
    const reader = await as.mint({ claims: { scope: 'notes:read' } });
    const answer = await refusal(await gate(verifier, ['notes:write'])(mcpRequest(bearer(reader))));
    expect(answer.status).toBe(403);
    expect(answer.challenge).toMatchObject({ error: 'insufficient_scope', scope: 'notes:write' });
    const broad = await as.mint({ claims: { scope: 'notes' } });
    expect(await gate(verifier, ['notes:write'])(mcpRequest(bearer(broad)))).not.toBeInstanceOf(Response);
  });

  it('validates an opaque token by introspection and remembers the verdict for the cache TTL only', async () => {
    const opaque = 'opaque-token-1';
    as.setIntrospection(opaque, {
      active: true,
      sub: 'bob',
      client_id: 'client-2',
      aud: RESOURCE,
      scope: 'notes:read',
      exp: Math.floor(Date.now() / 1000) + 300,
    });
    const before = as.hits('/introspect');
    await verifier.verifyAccessToken(opaque);
    await verifier.verifyAccessToken(opaque);
    expect(as.hits('/introspect')).toBe(before + 1);

    const uncached = createTokenVerifier({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      tokens: {
        cacheTtlSeconds: 0,
        introspection: { clientId: INTROSPECTION_CLIENT.id, clientSecret: INTROSPECTION_CLIENT.secret },
      },
    });
    await uncached.verifyAccessToken(opaque);
    as.setIntrospection(opaque, { active: false });
    const error = await uncached.verifyAccessToken(opaque).catch((thrown: unknown) => thrown);
    expect((error as McpOAuthError).code).toBe('invalid_token');
    expect(as.hits('/introspect')).toBe(before + 3);
  });

  it('refuses a DPoP-bound token presented as Bearer when DPoP is composed', async () => {
    const withDpop = createTokenVerifier({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      extensions: ExtensionRegistry.compose([dpopExtension({ authorizationServer: false, client: false })]),
    });
    const bound = await as.mint({ claims: { cnf: { jkt: 'x'.repeat(43) } } });
    const error = await withDpop.verifyAccessToken(bound).catch((thrown: unknown) => thrown);
    expect((error as McpOAuthError).code).toBe('invalid_token');
    await expect(withDpop.verifyAccessToken(await as.mint())).resolves.toMatchObject({ token: '' });
  });
});

describe('createTokenVerifier while the authorization server cannot be reached', () => {
  it('is a server_error (500 from the SDK), never invalid_token', async () => {
    const as = await startTestAuthorizationServer({ audience: RESOURCE });
    try {
      as.failJwks(503);
      const verifier = createTokenVerifier({ resource: RESOURCE, authorizationServers: [as.issuer] });
      const token = await as.mint();
      const error = await verifier.verifyAccessToken(token).catch((thrown: unknown) => thrown);
      expect((error as McpOAuthError).code).toBe('server_error');
      const answer = await refusal(await gate(verifier)(mcpRequest(bearer(token))));
      expect(answer.status).toBe(500);
      expect(answer.challenge).toEqual({});
    } finally {
      await as.close();
    }
  });
});
