import { describe, expect, it } from '@jest/globals';
import {
  AS_CONTEXT,
  CLAIMS_CONTEXT,
  handler,
  strategy,
  extension,
  caught,
  caughtAsync,
  composeError,
} from '../../test/fixtures/registry.helpers.js';
import type { Extension } from '../contracts/extension.contract.js';
import type { JsonObject } from '../contracts/json.types.js';
import type { ExtensionRegistryErrorCode } from './extension-registry.error.js';
import { ExtensionRegistry } from './extension.registry.js';

const A = 'com.example/alpha';
const B = 'com.example/beta';
const C = 'com.example/gamma';

describe('ExtensionRegistry refuses malformed identities', () => {
  it.each([
    'alpha',
    'example/alpha',
    'com.example',
    'com.example/',
    'com.example/Alpha',
    'Com.Example/alpha',
    'com..example/alpha',
    'com.example/alpha/beta',
    '127.0.0.1/alpha',
    ' com.example/alpha',
    '',
  ])('refuses the extension id %j with invalid_id', (id) => {
    expect(composeError([extension(id)]).code).toBe('invalid_id');
  });

  it.each([undefined, 42, null])('refuses a non-string extension id (%p) with invalid_id', (id) => {
    expect(composeError([{ id, version: '1.0.0' }]).code).toBe('invalid_id');
  });

  it('refuses a malformed id among the requirements with invalid_id, naming it', () => {
    const error = composeError([extension(A, { requires: ['beta'] })]);
    expect([error.code, error.extensionIds, error.subject]).toEqual(['invalid_id', [A], 'beta']);
  });

  it.each(['1.0', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0-01', '1.0.0+', ' 1.0.0', 'latest', '^1.0.0', ''])(
    'refuses the version %j with invalid_version',
    (version) => {
      const error = composeError([{ id: A, version }]);
      expect([error.code, error.extensionIds]).toEqual(['invalid_version', [A]]);
    },
  );

  it('refuses two extensions with one id with duplicate_id', () => {
    const error = composeError([extension(A), extension(B), { ...extension(A), version: '2.0.0' }]);
    expect([error.code, error.extensionIds, error.subject]).toEqual(['duplicate_id', [A], A]);
  });
});

describe('ExtensionRegistry refuses unmet and circular requirements', () => {
  it('refuses an extension whose requirement is not composed with missing_requirement, naming both', () => {
    const error = composeError([extension(A), extension(B, { requires: [A, C] })]);
    expect([error.code, error.extensionIds, error.subject]).toEqual(['missing_requirement', [B], C]);
    expect(error.message).toContain(B);
    expect(error.message).toContain(C);
  });

  it('names every missing requirement of the extension in the message', () => {
    const error = composeError([extension(A, { requires: [B, C] })]);
    expect(error.code).toBe('missing_requirement');
    expect(error.message).toContain(`${B}, ${C}`);
  });

  it.each([
    ['an extension requiring itself', [extension(A, { requires: [A] })], [A]],
    [
      'two extensions requiring each other',
      [extension(A, { requires: [B] }), extension(B, { requires: [A] })],
      [A, B],
    ],
    [
      'a cycle reached through an extension outside it',
      [extension(A, { requires: [B] }), extension(B, { requires: [C] }), extension(C, { requires: [B] })],
      [B, C],
    ],
  ])('refuses %s with requirement_cycle, naming the cycle', (_, extensions, cycle) => {
    const error = composeError(extensions);
    expect([error.code, error.extensionIds]).toEqual(['requirement_cycle', cycle]);
  });
});

describe('ExtensionRegistry refuses hooks of the wrong shape with invalid_contribution', () => {
  const notJson: unknown[] = [Number.NaN, Infinity, undefined, () => 1, 1n, new Date(0), Symbol('x')];

  it.each<[string, unknown]>([
    ['a non-object extension', 'com.example/alpha'],
    ['a null extension', null],
    ['an unknown top-level member', { ...extension(A), authorisationServer: {} }],
    [
      'an unknown authorization server hook',
      extension(A, { authorizationServer: { grantType: {} } as never }),
    ],
    ['an unknown resource server hook', extension(A, { resourceServer: { challenge: {} } as never })],
    ['a side that is not an object', extension(A, { client: 'yes' as never })],
    ['requires that is not an array', extension(A, { requires: B as never })],
    ['metadata that is an array', extension(A, { authorizationServer: { metadata: [] as never } })],
    [
      'metadata that is a class instance',
      extension(A, { resourceServer: { metadata: new Date(0) as never } }),
    ],
    ...notJson.map((value): [string, unknown] => [
      `a metadata value ${String(typeof value === 'symbol' ? 'symbol' : value)}`,
      extension(A, { authorizationServer: { metadata: { field: value } as never } }),
    ]),
    ['a cyclic metadata value', extension(A, { authorizationServer: { metadata: cyclic() } })],
    [
      'a grant handler that is not a function',
      extension(A, { authorizationServer: { grantTypes: { x: 1 as never } } }),
    ],
    ['a grant type with a space', extension(A, { authorizationServer: { grantTypes: { 'a b': handler } } })],
    ['an empty grant type', extension(A, { authorizationServer: { grantTypes: { '': handler } } })],
    [
      'checks that are not an array',
      extension(A, { authorizationServer: { authorizationRequestChecks: {} as never } }),
    ],
    [
      'a check without a name',
      extension(A, {
        authorizationServer: { authorizationRequestChecks: [{ check: () => undefined } as never] },
      }),
    ],
    [
      'a check that is not a function',
      extension(A, {
        authorizationServer: { authorizationRequestChecks: [{ name: 'x', check: 1 as never }] },
      }),
    ],
    [
      'two checks with one name',
      extension(A, {
        authorizationServer: {
          authorizationRequestChecks: [
            { name: 'same', check: () => undefined },
            { name: 'same', check: () => undefined },
          ],
        },
      }),
    ],
    [
      'token claims that are not a function',
      extension(A, { authorizationServer: { tokenClaims: {} as never } }),
    ],
    [
      'a challenge parameter name that is not a token',
      extension(A, { resourceServer: { challengeParameters: { 'a b': 'x' } } }),
    ],
    [
      'a challenge parameter value with CRLF',
      extension(A, { resourceServer: { challengeParameters: { t: 'a\r\nSet-Cookie: x' } } }),
    ],
    [
      'a challenge parameter value that is not a string',
      extension(A, { resourceServer: { challengeParameters: { t: 1 as never } } }),
    ],
    [
      'a strategy without obtainToken',
      extension(A, { client: { grantStrategies: { s: { grantType: 'x' } as never } } }),
    ],
    [
      'a strategy with a malformed grant type',
      extension(A, { client: { grantStrategies: { s: { ...strategy, grantType: 'a b' } } } }),
    ],
    [
      'a strategy with a malformed name',
      extension(A, { client: { grantStrategies: { 'bad name': strategy } } }),
    ],
  ])('refuses %s when composing', (_, candidate) => {
    expect(composeError([candidate]).code).toBe('invalid_contribution');
  });

  it.each<[string, (registry: ExtensionRegistry) => unknown, Partial<Extension>]>([
    [
      'authorization server metadata returning an array',
      (registry) => registry.authorizationServerMetadata(AS_CONTEXT),
      { authorizationServer: { metadata: () => [] as never } },
    ],
    [
      'protected resource metadata returning NaN',
      (registry) => registry.resourceMetadata({ resource: 'r', revision: 'v' }),
      { resourceServer: { metadata: () => ({ n: Number.NaN }) } },
    ],
    [
      'challenge parameters returning a value with LF',
      (registry) => registry.challengeParameters({ status: 403, resource: 'r', revision: 'v' }),
      { resourceServer: { challengeParameters: () => ({ t: 'a\nb' }) } },
    ],
  ])('refuses %s when it is built', (_, build, hooks) => {
    const registry = new ExtensionRegistry([extension(A, hooks)]);
    const error = caught(() => build(registry));
    expect([error.code, error.extensionIds]).toEqual(['invalid_contribution', [A]]);
  });

  it('refuses token claims that are not JSON when the token is built', async () => {
    const registry = new ExtensionRegistry([
      extension(A, { authorizationServer: { tokenClaims: () => ({ when: new Date(0) }) as never } }),
    ]);
    const error = await caughtAsync(() => registry.tokenClaims(CLAIMS_CONTEXT));
    expect([error.code, error.extensionIds]).toEqual(['invalid_contribution', [A]]);
  });
});

describe('ExtensionRegistry reports one error whatever the input order', () => {
  it('reports the same code and extensions for every order of a set with several defects', () => {
    const defects = [
      extension(C, { requires: ['org.example/absent'] }),
      extension(A, { authorizationServer: { grantTypes: { shared: handler } } }),
      extension(B, { authorizationServer: { grantTypes: { shared: handler } } }),
    ];
    const reports = [
      [0, 1, 2],
      [2, 1, 0],
      [1, 0, 2],
      [1, 2, 0],
    ].map((order) => {
      const error = composeError(order.map((i) => defects[i]));
      return [error.code, error.extensionIds, error.subject] as [
        ExtensionRegistryErrorCode,
        readonly string[],
        string,
      ];
    });
    expect(new Set(reports.map((report) => JSON.stringify(report))).size).toBe(1);
    expect(reports[0]).toEqual(['missing_requirement', [C], 'org.example/absent']);
  });
});

function cyclic(): JsonObject {
  const value: Record<string, unknown> = { a: 1 };
  value['self'] = value;
  return value as JsonObject;
}
