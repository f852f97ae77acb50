import { describe, expect, it } from '@jest/globals';
import { caughtAsync } from '../../test/fixtures/registry.helpers.js';
import type { ExtensionModuleContext } from '../contracts/extension-module.contract.js';
import { defineExtension } from '../contracts/extension.contract.js';
import { extensionFromModule } from './module-export.check.js';

const CONTEXT: ExtensionModuleContext = Object.freeze({
  env: Object.freeze({ ACME_TENANTS: 'acme,globex' }),
  issuer: 'https://as.example.com',
  revision: '2026-07-28',
});
const tenant = defineExtension({ id: 'com.acme/tenant', version: '1.0.0' });

/** What `import()` resolves to: a namespace object without a prototype. */
function namespace(members: Record<string, unknown>): unknown {
  return Object.assign(Object.create(null), members);
}

describe('extensionFromModule', () => {
  it('takes a default export that is an extension as it is', async () => {
    expect(await extensionFromModule(namespace({ default: tenant }), CONTEXT)).toBe(tenant);
  });

  it('calls a default export that is a function once with the host context, and takes what it returns or resolves to', async () => {
    const calls: ExtensionModuleContext[] = [];
    const sync = (context: ExtensionModuleContext) => {
      calls.push(context);
      return { ...tenant, version: `1.0.${context.env['ACME_TENANTS']?.split(',').length ?? 0}` };
    };
    expect(await extensionFromModule(namespace({ default: sync }), CONTEXT)).toEqual({
      ...tenant,
      version: '1.0.2',
    });
    const later = async () => tenant;
    expect(await extensionFromModule(namespace({ default: later }), CONTEXT)).toBe(tenant);
    expect(calls).toEqual([CONTEXT]);
  });

  it.each([
    ['no default export', namespace({ tenant }), /no default export/],
    [
      'a string',
      namespace({ default: 'com.acme/tenant' }),
      /default export is a string, neither an extension/,
    ],
    ['null', namespace({ default: null }), /default export is null/],
    ['an array', namespace({ default: [tenant] }), /default export is an array/],
    [
      'a factory that throws',
      namespace({
        default: () => {
          throw new Error('ACME_TENANTS is unset');
        },
      }),
      /factory failed: ACME_TENANTS is unset/,
    ],
    [
      'a factory that rejects',
      namespace({ default: () => Promise.reject(new Error('no key set')) }),
      /factory failed: no key set/,
    ],
    [
      'a factory that returns a number',
      namespace({ default: () => 42 }),
      /factory returned a number, not an extension/,
    ],
  ])('refuses a module with %s as invalid_module, saying why', async (_what, loaded, reason) => {
    const error = await caughtAsync(() => extensionFromModule(loaded, CONTEXT));
    expect(error.code).toBe('invalid_module');
    expect(error.message).toMatch(reason);
  });

  it('checks the extension it gets for the contract’s shape, by the registry’s rules', async () => {
    const misspelt = { ...tenant, authorisationServer: {} };
    expect(
      (await caughtAsync(() => extensionFromModule(namespace({ default: misspelt }), CONTEXT))).code,
    ).toBe('invalid_contribution');
    const unnamed = async () => ({ version: '1.0.0' });
    expect(
      (await caughtAsync(() => extensionFromModule(namespace({ default: unnamed }), CONTEXT))).code,
    ).toBe('invalid_id');
  });
});
