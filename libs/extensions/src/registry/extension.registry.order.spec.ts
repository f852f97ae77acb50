import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Extension } from '../contracts/extension.contract.js';
import { ExtensionRegistry } from './extension.registry.js';

const AS_CONTEXT = { issuer: 'https://as.example.com', revision: '2026-07-28' };
const CLAIMS_CONTEXT = {
  ...AS_CONTEXT,
  grantType: 'authorization_code',
  clientId: 'c',
  client: { clientId: 'c', metadata: {} },
  subject: 's',
  scope: [],
  resources: [],
};

/** A field, claim or grant type name derived from an extension id, unique per extension. */
const slug = (id: string) => id.replace(/[^a-z0-9]/g, '_');

/**
 * Distinct extensions, each requiring some of those before it, each contributing through every hook, half of
 * them through functions: whatever the registry composes, it composes from this.
 */
const extensionSets = fc
  .uniqueArray(
    fc
      .tuple(
        fc.constantFrom('com.example', 'org.example', 'io.modelcontextprotocol', 'net.acme'),
        fc.stringMatching(/^[a-z]{1,4}$/),
      )
      .map(([prefix, name]) => `${prefix}/${name}`),
    { minLength: 1, maxLength: 7 },
  )
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id, i) =>
        fc.tuple(fc.subarray(ids.slice(0, i)), fc.boolean()).map(([requires, dynamic]): Extension => {
          const field = { [`${slug(id)}_field`]: id };
          return {
            id,
            version: `1.${i}.0`,
            requires,
            authorizationServer: {
              metadata: dynamic ? () => field : field,
              grantTypes: {
                [`urn:example:${slug(id)}`]: async () => ({ access_token: id, token_type: 'Bearer' }),
              },
              authorizationRequestChecks: [
                { name: 'first', check: () => undefined },
                { name: 'second', check: () => undefined },
              ],
              tokenClaims: () => ({ [`${slug(id)}_claim`]: i }),
            },
            resourceServer: { metadata: field, challengeParameters: { [`${slug(id)}_param`]: 'v' } },
            client: {
              grantStrategies: {
                [slug(id)]: {
                  grantType: `urn:example:${slug(id)}`,
                  obtainToken: async () => ({ access_token: id, token_type: 'Bearer' }),
                },
              },
            },
          };
        }),
      ),
    ),
  );

const permutationPairs = extensionSets.chain((extensions) => {
  const permutation = fc.shuffledSubarray(extensions, {
    minLength: extensions.length,
    maxLength: extensions.length,
  });
  return fc.tuple(permutation, permutation);
});

/** Every ordered view of a registry, reduced to plain data. */
async function views(registry: ExtensionRegistry) {
  return {
    list: registry.list(),
    asMetadata: Object.keys(registry.authorizationServerMetadata(AS_CONTEXT)),
    grantTypes: registry.grantTypes(),
    checks: registry.authorizationRequestChecks().map(({ extensionId, name }) => `${extensionId}#${name}`),
    claims: Object.keys(await registry.tokenClaims(CLAIMS_CONTEXT)),
    resourceMetadata: Object.keys(registry.resourceMetadata({ resource: 'r', revision: 'v' })),
    challenge: Object.keys(registry.challengeParameters({ status: 401, resource: 'r', revision: 'v' })),
    strategies: registry.clientGrantStrategies().map(({ name }) => name),
  };
}

describe('ExtensionRegistry order', () => {
  it('gives every view the same order whatever order the extensions are composed in', async () => {
    await fc.assert(
      fc.asyncProperty(permutationPairs, async ([first, second]) => {
        expect(await views(new ExtensionRegistry(first))).toEqual(await views(new ExtensionRegistry(second)));
      }),
    );
  });

  it('lists each extension after those it requires, and every view follows the list', async () => {
    await fc.assert(
      fc.asyncProperty(extensionSets, async (extensions) => {
        const registry = new ExtensionRegistry(extensions);
        const order = registry.list().map(({ id }) => id);
        const position = new Map(order.map((id, i) => [id, i]));
        for (const { id, requires = [] } of extensions) {
          for (const required of requires)
            expect(position.get(required)).toBeLessThan(position.get(id) as number);
        }
        const { grantTypes, checks, claims, strategies } = await views(registry);
        expect(grantTypes).toEqual(order.map((id) => `urn:example:${slug(id)}`));
        expect(checks).toEqual(order.flatMap((id) => [`${id}#first`, `${id}#second`]));
        expect(claims).toEqual(order.map((id) => `${slug(id)}_claim`));
        expect(strategies).toEqual(order.map(slug));
      }),
    );
  });

  it('lets requirements override id order: a required extension runs first even when its id sorts last', () => {
    const registry = new ExtensionRegistry([
      { id: 'com.example/a', version: '1.0.0', requires: ['org.example/z'] },
      { id: 'org.example/z', version: '1.0.0' },
      { id: 'com.example/b', version: '1.0.0' },
    ]);
    expect(registry.list().map(({ id }) => id)).toEqual(['com.example/b', 'org.example/z', 'com.example/a']);
  });
});
