import { describe, expect, it } from '@jest/globals';
import { caught, extension } from '../../test/fixtures/registry.helpers.js';
import { ExtensionRegistry } from './extension.registry.js';

const alpha = extension('com.example/alpha', {
  authorizationServer: { metadata: { alpha_supported: true } },
});
const beta = extension('com.example/beta', { requires: ['com.example/alpha'] });
const rival = extension('com.example/rival', {
  authorizationServer: { metadata: { alpha_supported: false } },
});

describe('ExtensionRegistry.with', () => {
  it('composes this registry’s extensions and the added ones, in the registry order, leaving this one unchanged', () => {
    const configured = ExtensionRegistry.compose([alpha]);
    const added = configured.with([beta]);
    expect(added.list().map(({ id }) => id)).toEqual(['com.example/alpha', 'com.example/beta']);
    expect(configured.list().map(({ id }) => id)).toEqual(['com.example/alpha']);
    expect(
      added.authorizationServerMetadata({ issuer: 'https://as.example.com', revision: '2026-07-28' }),
    ).toEqual({
      alpha_supported: true,
    });
  });

  it('adds another registry’s extensions', () => {
    const union = ExtensionRegistry.compose([]).with(ExtensionRegistry.compose([alpha, beta]));
    expect(union.list().map(({ id }) => id)).toEqual(['com.example/alpha', 'com.example/beta']);
  });

  it('refuses a union the registry cannot compose: one id twice, or two owners of one metadata field', () => {
    const configured = ExtensionRegistry.compose([alpha]);
    expect(caught(() => configured.with([alpha])).code).toBe('duplicate_id');
    expect(caught(() => configured.with(ExtensionRegistry.compose([rival]))).code).toBe('metadata_conflict');
  });

  it('lets an added extension require a configured one, and refuses one whose requirement neither set composes', () => {
    expect(ExtensionRegistry.compose([alpha]).with([beta]).has('com.example/beta')).toBe(true);
    expect(caught(() => ExtensionRegistry.compose([]).with([beta])).code).toBe('missing_requirement');
  });
});
