// The command line declares the extension its tokens come from in the MCP client capabilities, over real HTTP:
// MCP SEP-2133 "Negotiation" (https://modelcontextprotocol.io/seps/2133-extensions): "Clients advertise extension
// support in the `initialize` request", a map of extension identifiers to settings objects, `{}` for none; under
// 2026-07-28 in each request's `_meta["io.modelcontextprotocol/clientCapabilities"]`. The ext-auth guides ask it of a
// client using either extension ("Declare support",
// https://modelcontextprotocol.io/extensions/auth/oauth-client-credentials,
// https://modelcontextprotocol.io/extensions/auth/enterprise-managed-authorization).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIdp } from './support/enterprise-idp.js';
import { startStack } from './support/oauth-stack.js';
import { runCli } from './support/run-cli.js';

const CLIENT_CREDENTIALS = 'io.modelcontextprotocol/oauth-client-credentials';
const ENTERPRISE_MANAGED_AUTHORIZATION = 'io.modelcontextprotocol/enterprise-managed-authorization';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

interface Message {
  readonly method?: string;
  readonly params?: {
    readonly capabilities?: { readonly extensions?: unknown };
    readonly _meta?: Readonly<Record<string, { readonly extensions?: unknown } | undefined>>;
  };
}

/**
 * The client capabilities each request declares: those of `initialize` (2025 era), else the per-request envelope
 * (2026-07-28); `extensions` or `null` where there is none. Requests that declare no capabilities are skipped.
 */
function declaredExtensions(messages: readonly unknown[]): unknown[] {
  return (messages as readonly Message[]).flatMap(({ method, params }) => {
    const capabilities =
      method === 'initialize'
        ? params?.capabilities
        : params?._meta?.['io.modelcontextprotocol/clientCapabilities'];
    return capabilities === undefined ? [] : [capabilities.extensions ?? null];
  });
}

describe('the extension of the grant strategy in the command line’s MCP capabilities', () => {
  let dir: string;
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  let idp: Awaited<ReturnType<typeof startIdp>> | undefined;
  const home = () => mkdtemp(join(dir, 'home-'));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-capabilities-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stack?.close();
    await idp?.close();
    stack = undefined;
    idp = undefined;
  });

  it('declares io.modelcontextprotocol/oauth-client-credentials in every request with --client-credentials', async () => {
    stack = await startStack({ registration: false, grantTypes: ['client_credentials'] });

    const result = await runCli(
      [
        'call',
        stack.mcpUrl,
        'notes_list',
        '--client-credentials',
        '--client-id',
        'svc',
        '--client-secret',
        'svc-secret',
      ],
      { PORTCULLIS_HOME: await home() },
    );

    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('no notes yet');
    expect(stack.tokenRequests.map((params) => params.get('grant_type'))).toEqual(['client_credentials']);
    const declared = declaredExtensions(stack.mcpMessages);
    expect(declared.length).toBeGreaterThan(0);
    expect(declared).toEqual(declared.map(() => ({ [CLIENT_CREDENTIALS]: {} })));
  });

  it('declares io.modelcontextprotocol/enterprise-managed-authorization, and only it, with --id-jag', async () => {
    stack = await startStack({ registration: false, grantTypes: ['authorization_code', JWT_BEARER] });
    idp = await startIdp({});

    const result = await runCli(
      [
        'call',
        stack.mcpUrl,
        'notes_list',
        '--id-jag',
        '--idp-token-endpoint',
        idp.tokenEndpoint,
        '--id-token',
        idp.idToken,
        '--idp-client-id',
        'idp-client',
        '--idp-client-secret',
        'idp-secret',
        '--client-id',
        'mcp-client',
        '--client-secret',
        'mcp-secret',
      ],
      { PORTCULLIS_HOME: await home() },
    );

    expect(result.code).toBe(0);
    expect(stack.tokenRequests.map((params) => params.get('grant_type'))).toEqual([JWT_BEARER]);
    const declared = declaredExtensions(stack.mcpMessages);
    expect(declared.length).toBeGreaterThan(0);
    expect(declared).toEqual(declared.map(() => ({ [ENTERPRISE_MANAGED_AUTHORIZATION]: {} })));
  });

  it('declares it in the 2025-era initialize request of a conformance run with client credentials', async () => {
    stack = await startStack({ registration: false, grantTypes: ['client_credentials'] });

    const result = await runCli(['conformance', stack.mcpUrl], {
      PORTCULLIS_HOME: await home(),
      MCP_CONFORMANCE_SCENARIO: 'auth/client-credentials-basic',
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-06-18',
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({
        client_id: 'suite-client',
        client_secret: 'suite-secret',
        issuer: stack.as.url,
      }),
    });

    expect(result.code).toBe(0);
    const initialize = (stack.mcpMessages as Message[]).filter(({ method }) => method === 'initialize');
    expect(initialize.length).toBeGreaterThan(0);
    for (const { params } of initialize) {
      expect(params?.capabilities).toEqual({ extensions: { [CLIENT_CREDENTIALS]: {} } });
    }
  });

  it('declares no extension when a user authorizes (no grant strategy)', async () => {
    stack = await startStack();

    const result = await runCli(['call', stack.mcpUrl, 'notes_list', '--headless'], {
      PORTCULLIS_HOME: await home(),
    });

    expect(result.code).toBe(0);
    expect(stack.authorizationRequests).toHaveLength(1);
    const declared = declaredExtensions(stack.mcpMessages);
    expect(declared.length).toBeGreaterThan(0);
    expect(declared).toEqual(declared.map(() => null));
  });
});
