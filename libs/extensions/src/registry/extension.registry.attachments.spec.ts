import { describe, expect, it } from '@jest/globals';
import { CLAIMS_CONTEXT, caughtAsync, extension } from '../../test/fixtures/registry.helpers.js';
import type { AuthorizationRequest } from '../contracts/authorization-request.hooks.js';
import type { JsonObject } from '../contracts/json.types.js';
import type { TokenClaimsContext } from '../contracts/token-claims.hooks.js';
import { ExtensionRegistry } from './extension.registry.js';

const AS_CONTEXT = { issuer: 'https://as.example.com', revision: '2026-07-28' };
const REQUEST: AuthorizationRequest = {
  params: { tenant: 'acme', region: 'eu' },
  resources: ['https://mcp.example.com'],
  client: { clientId: 'client-1', metadata: {} },
};

/** An extension whose checks attach what `attach` returns and whose claims hook records its context. */
function attaching(
  id: string,
  attach: ((request: AuthorizationRequest) => unknown)[],
  seen: TokenClaimsContext[] = [],
) {
  return extension(id, {
    authorizationServer: {
      authorizationRequestChecks: attach.map((each, index) => ({
        name: `check-${index}`,
        check: (request: AuthorizationRequest) => each(request) as JsonObject | undefined,
      })),
      tokenClaims: (context) => {
        seen.push(context);
        return {};
      },
    },
  });
}

describe('ExtensionRegistry attachments', () => {
  it('returns what each extension’s checks attached, by extension id, and nothing for one that attached nothing', async () => {
    const registry = ExtensionRegistry.compose([
      attaching('com.example/tenant', [({ params }) => ({ tenant: params['tenant'] ?? null })]),
      attaching('com.example/silent', [() => undefined]),
    ]);
    expect(await registry.runAuthorizationRequestChecks(REQUEST, AS_CONTEXT)).toEqual({
      'com.example/tenant': { tenant: 'acme' },
    });
  });

  it('merges the attachments of one extension’s checks in check order, a later member replacing an earlier one', async () => {
    const registry = ExtensionRegistry.compose([
      attaching('com.example/tenant', [
        () => ({ tenant: 'first', region: 'us' }),
        () => ({ tenant: 'second' }),
      ]),
    ]);
    expect(await registry.runAuthorizationRequestChecks(REQUEST, AS_CONTEXT)).toEqual({
      'com.example/tenant': { tenant: 'second', region: 'us' },
    });
  });

  it('keeps a member named __proto__ an ordinary member of the attachments', async () => {
    const registry = ExtensionRegistry.compose([
      attaching('com.example/tenant', [() => JSON.parse('{"__proto__": {"polluted": true}}') as JsonObject]),
    ]);
    const attachments = await registry.runAuthorizationRequestChecks(REQUEST, AS_CONTEXT);
    const own = attachments['com.example/tenant'] as Record<string, unknown>;
    expect(Object.keys(own)).toEqual(['__proto__']);
    expect((own as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it.each([
    ['null', null],
    ['a string', 'acme'],
    ['an array', ['acme']],
    ['an object with a function', { tenant: () => 'acme' }],
  ])(
    'refuses a check that returns %s with invalid_contribution naming the extension and the check',
    async (_what, value) => {
      const registry = ExtensionRegistry.compose([attaching('com.example/tenant', [() => value])]);
      const error = await caughtAsync(() => registry.runAuthorizationRequestChecks(REQUEST, AS_CONTEXT));
      expect(error.code).toBe('invalid_contribution');
      expect(error.extensionIds).toEqual(['com.example/tenant']);
      expect(error.message).toContain('authorizationRequestChecks check-0');
    },
  );

  it('gives each claims hook its own extension’s attachments, a copy, and an empty object to the others', async () => {
    const tenantSaw: TokenClaimsContext[] = [];
    const otherSaw: TokenClaimsContext[] = [];
    const registry = ExtensionRegistry.compose([
      attaching('com.example/tenant', [], tenantSaw),
      attaching('com.example/other', [], otherSaw),
    ]);
    const attachments = { 'com.example/tenant': { tenant: 'acme' } };
    await registry.tokenClaims({ ...CLAIMS_CONTEXT, attachments });
    expect(tenantSaw.map((context) => context.attachments)).toEqual([{ tenant: 'acme' }]);
    expect(otherSaw.map((context) => context.attachments)).toEqual([{}]);
    (tenantSaw[0]!.attachments as Record<string, unknown>)['tenant'] = 'changed';
    expect(attachments['com.example/tenant'].tenant).toBe('acme');
    // Without attachments (a token of a grant without an authorization request), every hook gets an empty object.
    await registry.tokenClaims(CLAIMS_CONTEXT);
    expect(tenantSaw[1]!.attachments).toEqual({});
  });

  it('never hands a hook the attachments of an id it does not own, even one inherited from Object.prototype', async () => {
    const saw: TokenClaimsContext[] = [];
    const registry = ExtensionRegistry.compose([attaching('com.example/tenant', [], saw)]);
    await registry.tokenClaims({
      ...CLAIMS_CONTEXT,
      attachments: Object.create({ 'com.example/tenant': { x: 1 } }),
    });
    expect(saw[0]!.attachments).toEqual({});
  });
});
