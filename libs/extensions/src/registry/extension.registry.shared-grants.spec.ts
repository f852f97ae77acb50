import { describe, expect, it } from '@jest/globals';
import { composeError, extension, handler } from '../../test/fixtures/registry.helpers.js';
import type { GrantSelectionRequest } from '../contracts/authorization-server.hooks.js';
import { ExtensionRegistry } from './extension.registry.js';

const A = 'com.example/alpha';
const B = 'com.example/beta';
const C = 'com.example/gamma';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const request = (kind: string): GrantSelectionRequest => ({
  grantType: JWT_BEARER,
  params: { assertion: kind },
  resources: [],
});
const always = (): boolean => true;
const takes =
  (kind: string) =>
  ({ params }: GrantSelectionRequest): boolean =>
    params['assertion'] === kind;

describe('ExtensionRegistry shares a grant type between extensions that each say which requests they take', () => {
  const registry = ExtensionRegistry.compose([
    extension(B, {
      authorizationServer: { grantTypes: { [JWT_BEARER]: { accepts: takes('workload'), handle: handler } } },
    }),
    extension(A, {
      authorizationServer: {
        grantTypes: {
          [JWT_BEARER]: { accepts: takes('id-jag'), handle: handler, establishesClient: false },
        },
      },
    }),
  ]);

  it('lists the shared grant type once', () => {
    expect(registry.grantTypes()).toEqual([JWT_BEARER]);
  });

  it('keeps every registration, in the registry order', () => {
    expect(
      registry.grantRegistrations(JWT_BEARER).map(({ extensionId, shared }) => [extensionId, shared]),
    ).toEqual([
      [A, true],
      [B, true],
    ]);
  });

  it('dispatches a request to the registration that accepts it', () => {
    expect(registry.selectGrant(request('id-jag'))?.extensionId).toBe(A);
    expect(registry.selectGrant(request('workload'))?.extensionId).toBe(B);
  });

  it('selects nothing when no registration accepts the request, or the grant type is unknown', () => {
    expect(registry.selectGrant(request('something else'))).toBeUndefined();
    expect(registry.selectGrant({ ...request('id-jag'), grantType: 'urn:example:unknown' })).toBeUndefined();
  });

  it('dispatches to the first in the registry order when several accept', () => {
    const both = ExtensionRegistry.compose([
      extension(B, {
        authorizationServer: { grantTypes: { [JWT_BEARER]: { accepts: always, handle: handler } } },
      }),
      extension(A, {
        authorizationServer: { grantTypes: { [JWT_BEARER]: { accepts: always, handle: handler } } },
      }),
    ]);
    expect(both.selectGrant(request('any'))?.extensionId).toBe(A);
  });

  it('gives no bare handler for a shared grant type: the host must select', () => {
    expect(registry.grantHandler(JWT_BEARER)).toBeUndefined();
  });

  it('treats accepts returning anything but true as a refusal', () => {
    const loose = ExtensionRegistry.compose([
      extension(A, {
        authorizationServer: {
          grantTypes: {
            [JWT_BEARER]: { accepts: (() => 'yes') as unknown as () => boolean, handle: handler },
          },
        },
      }),
    ]);
    expect(loose.selectGrant(request('any'))).toBeUndefined();
  });
});

describe('ExtensionRegistry refuses to share a grant type with a registration that does not share it', () => {
  it.each([
    [
      'the unshared one first',
      { [JWT_BEARER]: handler },
      { [JWT_BEARER]: { accepts: always, handle: handler } },
    ],
    [
      'the shared one first',
      { [JWT_BEARER]: { accepts: always, handle: handler } },
      { [JWT_BEARER]: handler },
    ],
    [
      'a registration object without accepts',
      { [JWT_BEARER]: { handle: handler } },
      { [JWT_BEARER]: { accepts: always, handle: handler } },
    ],
  ])('with grant_type_conflict, naming both (%s)', (_name, alpha, beta) => {
    const error = composeError([
      extension(A, { authorizationServer: { grantTypes: alpha } }),
      extension(B, { authorizationServer: { grantTypes: beta } }),
    ]);
    expect([error.code, error.extensionIds, error.subject]).toEqual([
      'grant_type_conflict',
      [A, B],
      JWT_BEARER,
    ]);
  });

  it('refuses a shared registration of a grant type the host keeps', () => {
    const error = composeError([
      extension(A, {
        authorizationServer: { grantTypes: { refresh_token: { accepts: always, handle: handler } } },
      }),
    ]);
    expect([error.code, error.subject]).toEqual(['grant_type_conflict', 'refresh_token']);
  });

  it.each([
    ['a handle that is not a function', { handle: 'no' }],
    ['an accepts that is not a function', { handle: handler, accepts: true }],
    ['an establishesClient that is not a boolean', { handle: handler, establishesClient: 'yes' }],
    ['a misspelt member', { handle: handler, accept: () => true }],
  ])('refuses a registration with %s as invalid_contribution', (_name, registration) => {
    const error = composeError([
      extension(A, { authorizationServer: { grantTypes: { [JWT_BEARER]: registration } } } as never),
    ]);
    expect([error.code, error.subject]).toEqual(['invalid_contribution', expect.any(String)]);
  });
});

describe('ExtensionRegistry opens a shared grant type to self-registered clients only when every sharer does', () => {
  const shared = (open: boolean) => ({
    authorizationServer: {
      grantTypes: { [JWT_BEARER]: { accepts: always, handle: handler } },
      ...(open ? { selfRegistrableGrantTypes: [JWT_BEARER] } : {}),
    },
  });

  it('keeps it for operator-registered clients when one sharer does not open it', () => {
    const registry = ExtensionRegistry.compose([extension(A, shared(true)), extension(B, shared(false))]);
    expect(registry.operatorGrantTypes()).toEqual([JWT_BEARER]);
  });

  it('opens it when every sharer opens it', () => {
    const registry = ExtensionRegistry.compose([
      extension(A, shared(true)),
      extension(B, shared(true)),
      extension(C, shared(true)),
    ]);
    expect(registry.operatorGrantTypes()).toEqual([]);
  });
});

describe('ExtensionRegistry marks a registration that establishes its client', () => {
  it('says so in the registration, and gives no bare handler for it', () => {
    const registry = ExtensionRegistry.compose([
      extension(A, {
        authorizationServer: { grantTypes: { [JWT_BEARER]: { establishesClient: true, handle: handler } } },
      }),
    ]);
    const [registration] = registry.grantRegistrations(JWT_BEARER);
    expect([registration?.establishesClient, registration?.shared]).toEqual([true, false]);
    expect(registry.selectGrant(request('any'))).toBe(registration);
    expect(registry.grantHandler(JWT_BEARER)).toBeUndefined();
  });
});
