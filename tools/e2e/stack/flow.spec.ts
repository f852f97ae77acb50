import { FormUserAgent } from '@portcullis/testing';
import { describe, expect, it } from '@jest/globals';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions, type AuthorizedFetch } from '@portcullis/client';
import { countingFetch, serveClientMetadata, text } from '../test/support/client-helpers.js';
import { STACK, withAppDatabase } from './support/compose-stack.js';

async function connect(authorizedFetch: AuthorizedFetch): Promise<Client> {
  const client = new Client({ name: 'portcullis-e2e-stack', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(STACK.resource), mcpTransportOptions(authorizedFetch)),
  );
  return client;
}

describe('the compose stack in containers, driven by the portcullis client and the official MCP client', () => {
  it('portcullis client, dynamic registration: login and consent, step-up from notes:read to notes:write, refresh', async () => {
    let grantWrite = false;
    const userAgent = new FormUserAgent(STACK.user, () => (grantWrite ? {} : { untick: ['notes:write'] }));
    const counts: Record<string, number> = {};
    let clockOffset = 0;
    const progress: string[] = [];
    const authorizedFetch = createAuthorizedFetch({
      resource: STACK.resource,
      userAgent,
      fetch: countingFetch(counts),
      now: () => Date.now() + clockOffset,
      onProgress: (event) => progress.push(`${event.step}: ${event.message}`),
    });
    const mcp = await connect(authorizedFetch);
    try {
      expect(userAgent.shown).toEqual({ login: 1, consent: 1, confirm: 0 });
      expect(progress.find((line) => line.startsWith('client_id:'))).toMatch(/regist/i);
      const clientId = (await authorizedFetch.tokens())?.clientId;
      expect(clientId).toMatch(/^dcr_/);

      grantWrite = true;
      const title = `compose stack ${Date.now()}`;
      const created = await mcp.callTool({ name: 'notes_create', arguments: { title } });
      expect(created.isError).toBeFalsy();
      expect(userAgent.shown).toEqual({ login: 1, consent: 2, confirm: 0 });
      expect(text(await mcp.callTool({ name: 'notes_list', arguments: {} }))).toContain(title);

      // Past the access token's expiry on the client's clock: one refresh, rotated.
      clockOffset = 3_600_000;
      const afterRefresh = await mcp.callTool({ name: 'notes_list', arguments: {} });
      expect(afterRefresh.isError).toBeFalsy();
      expect(counts).toEqual({ authorization_code: 2, refresh_token: 1 });

      // What the containers' databases hold: the registered client, its two grants, the note.
      await withAppDatabase('authorization_server', async (db) => {
        const grants = await db.query('SELECT scopes, revoked_at FROM grants WHERE client_id = $1', [
          clientId,
        ]);
        expect(grants.rows).toHaveLength(2);
        expect(grants.rows.every((row: { revoked_at: Date | null }) => row.revoked_at === null)).toBe(true);
      });
      await withAppDatabase('protected_server', async (db) => {
        expect((await db.query('SELECT 1 FROM notes WHERE title = $1', [title])).rowCount).toBe(1);
      });
    } finally {
      await mcp.close();
    }
  });

  it('portcullis client, client ID metadata document the containerised authorization server fetches', async () => {
    const userAgent = new FormUserAgent(STACK.user);
    const { url, server, fetches } = await serveClientMetadata(userAgent.redirectUris);
    try {
      const authorizedFetch = createAuthorizedFetch({
        resource: STACK.resource,
        userAgent,
        clientMetadataUrl: url,
      });
      const mcp = await connect(authorizedFetch);
      try {
        expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
        expect((await authorizedFetch.tokens())?.clientId).toBe(url);
        expect(fetches()).toBeGreaterThanOrEqual(1);
      } finally {
        await mcp.close();
      }
    } finally {
      server.close();
    }
  });

  it('the official MCP client with its own OAuth: 401, discovery, registration, PKCE, code, tokens, a tool call', async () => {
    const provider = new RecordingProvider();
    const first = new Client({ name: 'official-sdk-e2e', version: '1.0.0' });
    const connecting = first.connect(
      new StreamableHTTPClientTransport(new URL(STACK.resource), { authProvider: provider }),
    );
    await expect(connecting).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(STACK.issuer);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(STACK.resource);
    expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.client?.client_id).toMatch(/^dcr_/);

    // The person signs in and consents; the browser lands on the redirect URI with the code and iss.
    const userAgent = new FormUserAgent(STACK.user);
    const session = await userAgent.begin();
    const callback = new URL(await session.authorize(provider.authorizationUrl!.href));
    expect(callback.searchParams.get('iss')).toBe(STACK.issuer);
    const transport = new StreamableHTTPClientTransport(new URL(STACK.resource), { authProvider: provider });
    await transport.finishAuth(callback.searchParams);
    expect(provider.savedTokens?.token_type).toMatch(/^bearer$/i);
    expect(provider.savedTokens?.refresh_token).toBeTruthy();

    const client = new Client({ name: 'official-sdk-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain('notes_list');
      expect((await client.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

/** The official SDK's OAuth client state, kept in memory; the authorization URL is recorded, not opened. */
class RecordingProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:1/callback';
  authorizationUrl?: URL;
  client?: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  savedTokens?: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
  discovered?: OAuthDiscoveryState;
  #verifier = '';

  get clientMetadata() {
    return {
      client_name: 'Official MCP SDK (e2e)',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: NonNullable<RecordingProvider['client']>) {
    this.client = information;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: NonNullable<RecordingProvider['savedTokens']>) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveDiscoveryState(state: NonNullable<RecordingProvider['discovered']>) {
    this.discovered = state;
  }
  discoveryState() {
    return this.discovered;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}
