import { describe, expect, it } from '@jest/globals';
import {
  recordingGrantContext,
  TENANT_GRANT,
  TENANT_ID,
  tenantExtension,
  TICKET_GRANT,
  TICKET_ID,
  ticketExtension,
  type CheckLog,
} from '../../test/fixtures/toy.extensions.js';
import type { IssueTokensRequest } from '../contracts/authorization-server.hooks.js';
import type { ClientGrantContext } from '../contracts/client.hooks.js';
import { defineExtension } from '../contracts/extension.contract.js';
import { ExtensionRegistry } from './extension.registry.js';

const AS_CONTEXT = { issuer: 'https://as.example.com', revision: '2026-07-28' };
const CLIENT = { clientId: 'client-1', metadata: {} };

function composeToys(log: CheckLog = []) {
  return ExtensionRegistry.compose([tenantExtension(log), ticketExtension(log)]);
}

describe('ExtensionRegistry composing two extensions', () => {
  it('lists both with their versions, the required one first although its id sorts last', () => {
    expect(composeToys().list()).toEqual([
      { id: TICKET_ID, version: '1.0.0' },
      { id: TENANT_ID, version: '2.1.0-rc.1' },
    ]);
    expect(composeToys().has(TENANT_ID)).toBe(true);
    expect(composeToys().has('com.example/absent')).toBe(false);
  });

  it('merges the metadata fields of both, static and computed, in the registry order', () => {
    const metadata = composeToys().authorizationServerMetadata(AS_CONTEXT);
    expect(metadata).toEqual({
      ticket_endpoint: 'https://as.example.com/ticket',
      tenants_supported: ['acme', 'globex'],
    });
    expect(Object.keys(metadata)).toEqual(['ticket_endpoint', 'tenants_supported']);
  });

  it('reaches the grant type of each extension by name and lets each mint tokens through the host', async () => {
    const registry = composeToys();
    const issued: IssueTokensRequest[] = [];
    const context = recordingGrantContext(issued);
    expect(registry.grantTypes()).toEqual([TICKET_GRANT, TENANT_GRANT]);

    const ticket = await registry.grantHandler(TICKET_GRANT)?.(
      {
        grantType: TICKET_GRANT,
        params: { ticket: 'valid-ticket' },
        resources: ['https://mcp.example.com'],
        client: { ...CLIENT, authenticationMethod: 'none' },
      },
      context,
    );
    const tenant = await registry.grantHandler(TENANT_GRANT)?.(
      {
        grantType: TENANT_GRANT,
        params: {},
        resources: [],
        client: { ...CLIENT, authenticationMethod: 'private_key_jwt' },
      },
      context,
    );

    expect(ticket).toEqual({
      access_token: 'token-for-ticket-holder',
      token_type: 'Bearer',
      expires_in: 300,
    });
    expect(tenant).toEqual({ access_token: 'token-for-client-1', token_type: 'Bearer', expires_in: 300 });
    expect(issued).toEqual([
      { subject: 'ticket-holder', scope: ['mcp:read'], resources: ['https://mcp.example.com'] },
      { subject: 'client-1', scope: ['mcp:admin'], resources: [], refreshToken: false },
    ]);
  });

  it('has no handler for a grant type no extension claims, nor for names inherited from Object', () => {
    const registry = composeToys();
    for (const name of ['authorization_code', 'client_credentials', 'constructor', '__proto__', 'toString']) {
      expect(registry.grantHandler(name)).toBeUndefined();
    }
  });

  it('runs the authorization request checks of both in the registry order', async () => {
    const log: CheckLog = [];
    const registry = composeToys(log);
    expect(
      registry.authorizationRequestChecks().map(({ extensionId, name }) => `${extensionId}#${name}`),
    ).toEqual([`${TICKET_ID}#no-ticket-in-front-channel`, `${TENANT_ID}#tenant-known`]);

    await registry.runAuthorizationRequestChecks(
      { params: { tenant: 'acme' }, resources: [], client: CLIENT },
      AS_CONTEXT,
    );
    expect(log).toEqual([`${TICKET_ID}#no-ticket-in-front-channel`, `${TENANT_ID}#tenant-known`]);
  });

  it('stops at the first check that throws and rethrows what it threw', async () => {
    const log: CheckLog = [];
    const registry = composeToys(log);
    const run = registry.runAuthorizationRequestChecks(
      { params: { ticket: 'x', tenant: 'acme' }, resources: [], client: CLIENT },
      AS_CONTEXT,
    );
    await expect(run).rejects.toThrow(new Error('invalid_request'));
    expect(log).toEqual([`${TICKET_ID}#no-ticket-in-front-channel`]);
  });

  it('rejects through a later check when only that one fails', async () => {
    const log: CheckLog = [];
    const run = composeToys(log).runAuthorizationRequestChecks(
      { params: { tenant: 'initech' }, resources: [], client: CLIENT },
      AS_CONTEXT,
    );
    await expect(run).rejects.toThrow(new Error('invalid_request'));
    expect(log).toEqual([`${TICKET_ID}#no-ticket-in-front-channel`, `${TENANT_ID}#tenant-known`]);
  });

  it('merges the token claims of both, each computed for the token at hand', async () => {
    const registry = composeToys();
    const claimsContext = {
      ...AS_CONTEXT,
      clientId: 'client-1',
      client: CLIENT,
      subject: 'user-1',
      scope: ['mcp:read'],
      resources: ['https://mcp.example.com'],
    };
    expect(await registry.tokenClaims({ ...claimsContext, grantType: TICKET_GRANT })).toEqual({
      ticket_redeemed: true,
      tenant: 'acme',
    });
    expect(await registry.tokenClaims({ ...claimsContext, grantType: 'authorization_code' })).toEqual({
      tenant: 'acme',
    });
  });

  it('gives the resource server the metadata fields and challenge parameters contributed for it', () => {
    const registry = composeToys();
    const resource = 'https://mcp.example.com';
    expect(registry.resourceMetadata({ resource, revision: '2026-07-28' })).toEqual({
      tenant_resource: 'https://mcp.example.com#acme',
    });
    expect(registry.challengeParameters({ status: 401, resource, revision: '2026-07-28' })).toEqual({
      tenant: 'acme',
    });
  });

  it('offers the client grant strategies of both, each able to request a token through the SDK', async () => {
    const registry = composeToys();
    const sent: Readonly<Record<string, string>>[] = [];
    const context: ClientGrantContext = {
      issuer: AS_CONTEXT.issuer,
      authorizationServerMetadata: {},
      resource: 'https://mcp.example.com',
      scope: [],
      revision: AS_CONTEXT.revision,
      requestToken: async (params) => {
        sent.push(params);
        return { access_token: 'at', token_type: 'Bearer' };
      },
      fetch: () => Promise.reject(new Error('no network in this test')),
    };
    const strategies = registry.clientGrantStrategies();
    expect(
      strategies.map(({ extensionId, name, strategy }) => [extensionId, name, strategy.grantType]),
    ).toEqual([
      [TICKET_ID, 'ticket', TICKET_GRANT],
      [TENANT_ID, 'tenant-assertion', TENANT_GRANT],
    ]);
    for (const { strategy } of strategies) await strategy.obtainToken(context);
    expect(sent.map((params) => params['grant_type'])).toEqual([TICKET_GRANT, TENANT_GRANT]);
  });
});

describe('ExtensionRegistry grant types for self-registered clients', () => {
  const handler = async () => ({ access_token: 'a', token_type: 'Bearer' });
  it('keeps for operator-registered clients every grant type its extension does not open', () => {
    const registry = ExtensionRegistry.compose([
      defineExtension({
        id: 'com.example/open',
        version: '1.0.0',
        authorizationServer: {
          grantTypes: { 'urn:example:open': handler, 'urn:example:closed': handler },
          selfRegistrableGrantTypes: ['urn:example:open'],
        },
      }),
      defineExtension({
        id: 'com.example/closed',
        version: '1.0.0',
        authorizationServer: { grantTypes: { 'urn:example:other': handler } },
      }),
    ]);
    // The registry's order: com.example/closed sorts before com.example/open.
    expect(registry.grantTypes()).toEqual(['urn:example:other', 'urn:example:open', 'urn:example:closed']);
    expect(registry.operatorGrantTypes()).toEqual(['urn:example:other', 'urn:example:closed']);
  });

  it('refuses to open a grant type the extension does not handle', () => {
    expect(() =>
      ExtensionRegistry.compose([
        defineExtension({
          id: 'com.example/open',
          version: '1.0.0',
          authorizationServer: {
            grantTypes: { 'urn:example:open': handler },
            selfRegistrableGrantTypes: ['client_credentials'],
          },
        }),
      ]),
    ).toThrow(/selfRegistrableGrantTypes names "client_credentials"/);
  });
});

describe('ExtensionRegistry snapshots', () => {
  it('is not changed by later changes to an extension object or to a document it returned', () => {
    const tenant = tenantExtension();
    const registry = new ExtensionRegistry([ticketExtension(), tenant]);
    (tenant.authorizationServer.metadata.tenants_supported as unknown as string[]).push('initech');
    (tenant.authorizationServer.grantTypes as Record<string, unknown>)['late_grant'] = async () => ({});

    const first = registry.authorizationServerMetadata(AS_CONTEXT);
    (first['tenants_supported'] as string[]).push('hooli');
    first['injected'] = true;

    expect(registry.authorizationServerMetadata(AS_CONTEXT)).toEqual({
      ticket_endpoint: 'https://as.example.com/ticket',
      tenants_supported: ['acme', 'globex'],
    });
    expect(registry.grantTypes()).toEqual([TICKET_GRANT, TENANT_GRANT]);
  });

  it('returns frozen composed lists', () => {
    const registry = composeToys();
    expect(Object.isFrozen(registry.list())).toBe(true);
    expect(Object.isFrozen(registry.authorizationRequestChecks())).toBe(true);
    expect(Object.isFrozen(registry.clientGrantStrategies())).toBe(true);
  });

  it('keeps a field named __proto__ as an ordinary field instead of changing the prototype', () => {
    const registry = ExtensionRegistry.compose([
      defineExtension({
        id: 'com.example/odd',
        version: '1.0.0',
        authorizationServer: { metadata: () => JSON.parse('{"__proto__": {"polluted": true}}') },
      }),
    ]);
    const metadata = registry.authorizationServerMetadata(AS_CONTEXT);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.keys(metadata)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('ExtensionRegistry with nothing to compose', () => {
  it('answers every view empty', async () => {
    const registry = new ExtensionRegistry([]);
    expect(registry.list()).toEqual([]);
    expect(registry.authorizationServerMetadata(AS_CONTEXT)).toEqual({});
    expect(registry.grantTypes()).toEqual([]);
    expect(registry.authorizationRequestChecks()).toEqual([]);
    expect(
      registry.resourceMetadata({ resource: 'https://mcp.example.com', revision: '2026-07-28' }),
    ).toEqual({});
    expect(
      registry.challengeParameters({
        status: 403,
        error: 'insufficient_scope',
        resource: 'x',
        revision: 'y',
      }),
    ).toEqual({});
    expect(registry.clientGrantStrategies()).toEqual([]);
    expect(
      await registry.tokenClaims({
        ...AS_CONTEXT,
        grantType: 'authorization_code',
        clientId: 'c',
        client: { clientId: 'c', metadata: {} },
        subject: 's',
        scope: [],
        resources: [],
      }),
    ).toEqual({});
  });
});

describe('defineExtension', () => {
  it('returns the very object it is given, keeping its literal id for the type checker', () => {
    const extension = { id: 'com.example/marker', version: '0.1.0' } as const;
    const defined = defineExtension(extension);
    const id: 'com.example/marker' = defined.id;
    expect(defined).toBe(extension);
    expect(id).toBe('com.example/marker');
  });
});
