// MCP SEP-1046 (io.modelcontextprotocol/oauth-client-credentials,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx) end to
// end: the built authorization server with EXTENSIONS=client-credentials, a client registered with
// `portcullis-admin clients create --grant client_credentials`, the real protected server, and the client SDK and
// `portcullis` command line obtaining tokens by client credentials after discovery (PRM, then RFC 8414 metadata).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  findPortcullisError,
  mcpTransportOptions,
  MemoryTokenStore,
  type AuthorizedFetch,
} from '@portcullis/client';
import {
  CLIENT_CREDENTIALS_STRATEGY,
  clientCredentialsExtension,
} from '@portcullis/extension-client-credentials';
import { ExtensionRegistry } from '@portcullis/extensions';
import { decodeJwt } from 'jose';
import { countingFetch, text } from './support/client-helpers.js';
import { runCli as run } from './support/cli.js';
import { startStack, type Stack } from './support/stack.js';

const extensions = ExtensionRegistry.compose([clientCredentialsExtension]);

async function connect(authorizedFetch: AuthorizedFetch, resource: string): Promise<Client> {
  const client = new Client({ name: 'portcullis-e2e-machine', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), mcpTransportOptions(authorizedFetch)),
  );
  return client;
}

function runCli(args: string[], home: string) {
  return run(args, { PORTCULLIS_HOME: home, PORTCULLIS_TOKEN_KEY: 'ab'.repeat(32) });
}

describe('the client credentials extension end to end (SDK and command line against the real servers)', () => {
  let stack: Stack;
  let machine: { client_id: string; client_secret: string };
  let readOnly: { client_id: string; client_secret: string };
  beforeAll(async () => {
    stack = await startStack({
      authorizationServerEnv: { EXTENSIONS: 'client-credentials' },
      before: async (admin) => {
        const create = async (...args: string[]) => {
          const created = await admin(
            'clients',
            'create',
            '--grant',
            'client_credentials',
            ...args,
            '--json',
          );
          expect(created.code).toBe(0);
          return JSON.parse(created.stdout) as { client_id: string; client_secret: string };
        };
        machine = await create('--name', 'Nightly job');
        readOnly = await create('--name', 'Reporter', '--scope', 'notes:read');
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('the SDK obtains a token for the client itself that the protected server accepts, with no user and no refresh token', async () => {
    const counts: Record<string, number> = {};
    const store = new MemoryTokenStore();
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      clientCredentials: { ...credentials(machine), issuer: stack.issuer },
      extensions,
      grantStrategy: CLIENT_CREDENTIALS_STRATEGY,
      store,
      fetch: countingFetch(counts),
    });
    const mcp = await connect(authorizedFetch, stack.resource);
    const created = await mcp.callTool({
      name: 'notes_create',
      arguments: { title: 'from a machine', body: 'no user here' },
    });
    expect(created.isError).toBeFalsy();
    expect(text(await mcp.callTool({ name: 'notes_list', arguments: {} }))).toContain('from a machine');
    await mcp.close();

    expect(counts).toEqual({ client_credentials: 1 });
    const [tokens] = await store.findTokens(stack.resource);
    expect(tokens?.refreshToken).toBeUndefined();
    const claims = decodeJwt(tokens!.accessToken);
    expect(claims).toMatchObject({
      iss: stack.issuer,
      sub: machine.client_id,
      aud: stack.resource,
      client_id: machine.client_id,
      scope: 'notes:read notes:write',
    });
  });

  it('a client registered for notes:read is refused the wider scope the server challenges for: invalid_scope, nothing stored', async () => {
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      clientCredentials: { ...credentials(readOnly), issuer: stack.issuer },
      extensions,
      grantStrategy: CLIENT_CREDENTIALS_STRATEGY,
    });
    // MCP "Scope Selection Strategy": the first request asks for the challenged scope (or the PRM's
    // scopes_supported), notes:read notes:write here, which is outside the client's registered scope.
    let error: unknown;
    try {
      await connect(authorizedFetch, stack.resource);
    } catch (thrown) {
      error = thrown;
    }
    expect(findPortcullisError(error)?.code).toBe('token_request_failed');
    expect(findPortcullisError(error)?.authorizationServerError?.error).toBe('invalid_scope');
    expect(await authorizedFetch.tokens()).toBeUndefined();
  });

  it('a wrong secret is refused at the token endpoint, and nothing reaches the protected server with a token', async () => {
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      clientCredentials: { clientId: machine.client_id, clientSecret: 'wrong', issuer: stack.issuer },
      extensions,
      grantStrategy: CLIENT_CREDENTIALS_STRATEGY,
    });
    let error: unknown;
    try {
      await connect(authorizedFetch, stack.resource);
    } catch (thrown) {
      error = thrown;
    }
    expect(findPortcullisError(error)?.authorizationServerError?.error).toBe('invalid_client');
    expect(await authorizedFetch.tokens()).toBeUndefined();
  });

  it('`portcullis call --client-credentials` calls a tool as the client, after discovery', async () => {
    const home = await mkdtemp(join(tmpdir(), 'portcullis-cc-'));
    try {
      const args = [
        '--client-credentials',
        '--client-id',
        machine.client_id,
        '--client-secret',
        machine.client_secret,
      ];
      const created = await runCli(
        ['call', ...args, stack.resource, 'notes_create', '{"title":"from the CLI","body":"b"}'],
        home,
      );
      expect({ code: created.code, stderr: created.stderr }).toMatchObject({ code: 0 });
      expect(created.stderr).toContain('client_credentials');
      const listed = await runCli(['call', ...args, stack.resource, 'notes_list'], home);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('from the CLI');

      const usage = await runCli(['call', '--client-credentials', stack.resource, 'notes_list'], home);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('--client-credentials needs --client-id');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

function credentials(client: { client_id: string; client_secret: string }) {
  return { clientId: client.client_id, clientSecret: client.client_secret };
}
