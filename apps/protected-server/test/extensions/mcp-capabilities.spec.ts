// The extensions composed by EXTENSIONS, declared in the MCP server's capabilities over real HTTP: MCP SEP-2133
// "Negotiation" (https://modelcontextprotocol.io/seps/2133-extensions): "Servers advertise extension support in the
// `initialize` response", a map of extension identifiers to settings objects, "an empty object indicates no
// settings"; under 2026-07-28 in the `server/discover` result
// (https://modelcontextprotocol.io/extensions/auth/oauth-client-credentials, "Advertise support").
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { ConfigError } from '@portcullis/platform';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import { LEGACY_REVISION, legacyResult, modernMessage, postMcp, rpcResult } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const CLIENT_CREDENTIALS = 'io.modelcontextprotocol/oauth-client-credentials';
const ENTERPRISE_MANAGED_AUTHORIZATION = 'io.modelcontextprotocol/enterprise-managed-authorization';

const ERAS: [string, ClientOptions][] = [
  ['2025 (session-based)', {}],
  ['2026-07-28 (stateless)', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
];

type Capabilities = Record<string, unknown>;

/** The capabilities of a raw 2025-era `initialize` answer. */
async function initializeCapabilities(app: ProtectedServer, token: string): Promise<Capabilities> {
  const response = await postMcp(
    app,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_REVISION,
        capabilities: {},
        clientInfo: { name: 'portcullis-tests', version: '1' },
      },
    },
    { token },
  );
  const message = (await legacyResult(response)) as { result?: { capabilities?: Capabilities } };
  if (message.result?.capabilities === undefined)
    throw new Error(`no capabilities in ${JSON.stringify(message)}`);
  return message.result.capabilities;
}

/** The capabilities of a raw 2026-07-28 `server/discover` answer. */
async function discoverCapabilities(app: ProtectedServer, token: string): Promise<Capabilities> {
  const message = (await rpcResult(await postMcp(app, modernMessage('server/discover'), { token }))) as {
    result?: { capabilities?: Capabilities };
  };
  if (message.result?.capabilities === undefined)
    throw new Error(`no capabilities in ${JSON.stringify(message)}`);
  return message.result.capabilities;
}

describe('MCP capabilities.extensions of the protected server (MCP SEP-2133 "Negotiation")', () => {
  let as: TestAuthorizationServer;
  let withExtensions: ProtectedServer;
  let withoutExtensions: ProtectedServer;
  const tokenFor = (app: ProtectedServer) => as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    withExtensions = await startProtectedServer({
      authorizationServer: as.issuer,
      env: { EXTENSIONS: 'enterprise-managed-authorization, client-credentials' },
    });
    withoutExtensions = await startProtectedServer({
      authorizationServer: as.issuer,
      env: { EXTENSIONS: '' },
    });
  });
  afterAll(async () => {
    await withExtensions?.close();
    await withoutExtensions?.close();
    await as?.close();
  });

  it('declares each composed extension with an empty settings object in its initialize answer', async () => {
    const capabilities = await initializeCapabilities(withExtensions, await tokenFor(withExtensions));
    expect(capabilities['extensions']).toEqual({
      [CLIENT_CREDENTIALS]: {},
      [ENTERPRISE_MANAGED_AUTHORIZATION]: {},
    });
    expect(capabilities).toHaveProperty('tools');
    expect(capabilities).toHaveProperty('resources');
  });

  it('declares the same extensions in its 2026-07-28 server/discover answer', async () => {
    const capabilities = await discoverCapabilities(withExtensions, await tokenFor(withExtensions));
    expect(capabilities['extensions']).toEqual({
      [CLIENT_CREDENTIALS]: {},
      [ENTERPRISE_MANAGED_AUTHORIZATION]: {},
    });
  });

  it('leaves capabilities.extensions out with EXTENSIONS empty, in both eras', async () => {
    const token = await tokenFor(withoutExtensions);
    for (const capabilities of [
      await initializeCapabilities(withoutExtensions, token),
      await discoverCapabilities(withoutExtensions, token),
    ]) {
      expect(capabilities).not.toHaveProperty('extensions');
      expect(capabilities).toHaveProperty('tools');
    }
  });

  it.each(ERAS)('is read by the official MCP client SDK in the %s era', async (_era, options) => {
    const token = await tokenFor(withExtensions);
    const client = new Client({ name: 'portcullis-tests', version: '1.0.0' }, options);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(withExtensions.mcpUrl), {
        authProvider: { token: async () => token },
      }),
    );
    try {
      expect(client.getServerCapabilities()?.extensions).toEqual({
        [CLIENT_CREDENTIALS]: {},
        [ENTERPRISE_MANAGED_AUTHORIZATION]: {},
      });
    } finally {
      await client.close();
    }
  });

  it('publishes no extension member in its protected resource metadata: neither extension adds one', async () => {
    const response = await fetch(`${withExtensions.url}/.well-known/oauth-protected-resource/mcp`);
    expect(Object.keys((await response.json()) as object).sort()).toEqual([
      'authorization_servers',
      'bearer_methods_supported',
      'resource',
      'resource_name',
      'scopes_supported',
    ]);
  });
});

describe('EXTENSIONS at boot', () => {
  it('refuses a name that is neither built in nor installed with one configuration line naming it and the known ones', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'portcullis-no-extensions-'));
    try {
      const error = await AppModule.configure({
        EXTENSIONS: 'client-credentials,telepathy',
        EXTENSIONS_DIR: empty,
      }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `invalid configuration: EXTENSIONS names telepathy, which is neither a built-in extension (known: client-credentials, dpop, enterprise-managed-authorization) nor a module installed in ${empty} (EXTENSIONS_DIR)`,
      );
    } finally {
      await rm(empty, { recursive: true });
    }
  });
});
