import { describe, expect, it } from '@jest/globals';
import {
  ExtensionRegistry,
  type ClientGrantContext,
  type GrantRequest,
  type IssueTokensRequest,
  type TokenResponse,
} from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import {
  CLIENT_CREDENTIALS_EXTENSION_ID,
  CLIENT_CREDENTIALS_GRANT,
  CLIENT_CREDENTIALS_STRATEGY,
  clientCredentialsExtension,
} from './index.js';

const registry = ExtensionRegistry.compose([clientCredentialsExtension]);
const RESOURCE = 'https://mcp.example.com/mcp';

/** Runs the composed handler with a host that records what it was asked to issue. */
async function grant(
  client: { method?: string; scope?: string },
  params: Record<string, string> = {},
): Promise<{ issued: IssueTokensRequest[]; result?: TokenResponse; error?: unknown }> {
  const handler = registry.grantHandler(CLIENT_CREDENTIALS_GRANT)!;
  const issued: IssueTokensRequest[] = [];
  const request: GrantRequest = {
    grantType: CLIENT_CREDENTIALS_GRANT,
    params,
    resources: [RESOURCE],
    client: {
      clientId: 'machine-1',
      metadata: client.scope === undefined ? {} : { scope: client.scope },
      authenticationMethod: client.method ?? 'client_secret_basic',
    },
  };
  try {
    const result = await handler(request, {
      issuer: 'https://as.example.com',
      revision: '2026-07-28',
      issueTokens: async (tokens) => {
        issued.push(tokens);
        return { access_token: 'at', token_type: 'Bearer', scope: tokens.scope.join(' ') };
      },
      useOnce: async () => true,
      signJwt: async () => {
        throw new Error('client credentials signs nothing');
      },
      verifyIdToken: async () => undefined,
    });
    return { issued, result };
  } catch (error) {
    return { issued, error };
  }
}

function oauthCode(error: unknown): string | undefined {
  return error instanceof OAuthError ? error.code : undefined;
}

describe('io.modelcontextprotocol/oauth-client-credentials', () => {
  it('composes under its SEP-1046 id with the client_credentials grant and one client strategy', () => {
    expect(registry.list()).toEqual([{ id: CLIENT_CREDENTIALS_EXTENSION_ID, version: '0.1.0' }]);
    expect(registry.grantTypes()).toEqual(['client_credentials']);
    expect(registry.clientGrantStrategies().map(({ name, strategy }) => [name, strategy.grantType])).toEqual([
      [CLIENT_CREDENTIALS_STRATEGY, 'client_credentials'],
    ]);
  });

  it('issues for the client itself: sub is the client id, the requested resource, no refresh token', async () => {
    const { issued, result } = await grant({}, { scope: 'notes:read' });
    expect(result?.access_token).toBe('at');
    expect(issued).toEqual([
      { subject: 'machine-1', scope: ['notes:read'], resources: [RESOURCE], refreshToken: false },
    ]);
  });

  it.each(['client_secret_post', 'private_key_jwt'])(
    'accepts a client authenticated with %s',
    async (method) => {
      const { issued } = await grant({ method });
      expect(issued).toHaveLength(1);
      expect(issued[0]?.subject).toBe('machine-1');
    },
  );

  it('refuses a public client with invalid_client and issues nothing', async () => {
    const { issued, error } = await grant({ method: 'none' });
    expect(oauthCode(error)).toBe('invalid_client');
    expect(issued).toEqual([]);
  });

  it('keeps to the registered scope: a subset passes, anything outside is invalid_scope', async () => {
    const inside = await grant({ scope: 'notes:read notes:write' }, { scope: 'notes:read' });
    expect(inside.issued[0]?.scope).toEqual(['notes:read']);
    const outside = await grant({ scope: 'notes:read' }, { scope: 'notes:read notes:write' });
    expect(oauthCode(outside.error)).toBe('invalid_scope');
    expect(outside.issued).toEqual([]);
  });

  it('defaults to the registered scope, and to no scope (the host default) without one', async () => {
    expect((await grant({ scope: 'notes:read' })).issued[0]?.scope).toEqual(['notes:read']);
    expect((await grant({})).issued[0]?.scope).toEqual([]);
  });

  it.each(['openid', 'offline_access', 'notes:read offline_access', 'email', 'notes:read profile'])(
    'refuses %j: no end-user and no refresh token',
    async (scope) => {
      const { issued, error } = await grant({}, { scope });
      expect(oauthCode(error)).toBe('invalid_scope');
      expect(issued).toEqual([]);
    },
  );

  it('refuses a malformed scope parameter with invalid_scope', async () => {
    const { issued, error } = await grant({}, { scope: 'notes:read  notes:write' });
    expect(oauthCode(error)).toBe('invalid_scope');
    expect(issued).toEqual([]);
  });

  it('the client strategy sends grant_type=client_credentials with the chosen scope', async () => {
    const [entry] = registry.clientGrantStrategies();
    const sent: Record<string, string>[] = [];
    const context = (scope: string[]): ClientGrantContext => ({
      issuer: 'https://as.example.com',
      authorizationServerMetadata: {},
      resource: RESOURCE,
      scope,
      revision: '2026-07-28',
      requestToken: async (params) => {
        sent.push({ ...params });
        return { access_token: 'at', token_type: 'Bearer' };
      },
      fetch,
    });
    await entry!.strategy.obtainToken(context(['notes:read', 'notes:write']));
    await entry!.strategy.obtainToken(context([]));
    expect(sent).toEqual([
      { grant_type: 'client_credentials', scope: 'notes:read notes:write' },
      { grant_type: 'client_credentials' },
    ]);
  });
});
