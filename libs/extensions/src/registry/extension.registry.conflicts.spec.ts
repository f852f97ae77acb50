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
import type { JsonObject } from '../contracts/json.types.js';
import { ExtensionRegistry } from './extension.registry.js';

const A = 'com.example/alpha';
const B = 'com.example/beta';

describe('ExtensionRegistry refuses two owners for one grant type or strategy', () => {
  it('refuses two extensions claiming one grant type with grant_type_conflict, naming both', () => {
    const error = composeError([
      extension(B, { authorizationServer: { grantTypes: { client_credentials: handler } } }),
      extension(A, { authorizationServer: { grantTypes: { client_credentials: handler } } }),
    ]);
    expect([error.code, error.extensionIds, error.subject]).toEqual([
      'grant_type_conflict',
      [A, B],
      'client_credentials',
    ]);
  });

  it.each(['authorization_code', 'refresh_token', 'password'])(
    'refuses an extension claiming the grant type %s with grant_type_conflict',
    (grantType) => {
      const error = composeError([
        extension(A, { authorizationServer: { grantTypes: { [grantType]: handler } } }),
      ]);
      expect([error.code, error.extensionIds, error.subject]).toEqual([
        'grant_type_conflict',
        [A],
        grantType,
      ]);
    },
  );

  it('refuses two extensions contributing one client grant strategy name with grant_strategy_conflict', () => {
    const error = composeError([
      extension(A, { client: { grantStrategies: { machine: strategy } } }),
      extension(B, { client: { grantStrategies: { machine: strategy } } }),
    ]);
    expect([error.code, error.extensionIds, error.subject]).toEqual([
      'grant_strategy_conflict',
      [A, B],
      'machine',
    ]);
  });
});

describe('ExtensionRegistry refuses two owners for one metadata field', () => {
  it.each([
    ['authorization server', { authorizationServer: { metadata: { shared_field: 1 } } }],
    ['protected resource', { resourceServer: { metadata: { shared_field: 'x' } } }],
  ])('refuses two fixed %s contributions of one field when composing, with metadata_conflict', (_, hooks) => {
    const error = composeError([extension(A, hooks), extension(B, hooks)]);
    expect([error.code, error.extensionIds, error.subject]).toEqual([
      'metadata_conflict',
      [A, B],
      'shared_field',
    ]);
  });

  it.each([
    'issuer',
    'token_endpoint',
    'grant_types_supported',
    'authorization_response_iss_parameter_supported',
  ])(
    'refuses a fixed authorization server metadata field %s, which the host keeps, when composing',
    (field) => {
      const error = composeError([extension(A, { authorizationServer: { metadata: { [field]: 'x' } } })]);
      expect([error.code, error.extensionIds, error.subject]).toEqual(['metadata_conflict', [A], field]);
    },
  );

  it.each(['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'])(
    'refuses a fixed protected resource metadata field %s, which the host keeps, when composing',
    (field) => {
      const error = composeError([extension(A, { resourceServer: { metadata: { [field]: 'x' } } })]);
      expect([error.code, error.subject]).toEqual(['metadata_conflict', field]);
    },
  );

  it('composes a computed field that clashes, then refuses it when the document is built', () => {
    const registry = new ExtensionRegistry([
      extension(A, { authorizationServer: { metadata: { shared_field: 1 } } }),
      extension(B, { authorizationServer: { metadata: () => ({ shared_field: 2 }) } }),
    ]);
    const error = caught(() => registry.authorizationServerMetadata(AS_CONTEXT));
    expect([error.code, error.extensionIds, error.subject]).toEqual([
      'metadata_conflict',
      [A, B],
      'shared_field',
    ]);
  });

  it('refuses a computed field the host keeps when the document is built', () => {
    const registry = new ExtensionRegistry([
      extension(A, { resourceServer: { metadata: ({ resource }) => ({ resource: `${resource}/evil` }) } }),
    ]);
    const error = caught(() =>
      registry.resourceMetadata({ resource: 'https://mcp.example.com', revision: 'r' }),
    );
    expect([error.code, error.subject]).toEqual(['metadata_conflict', 'resource']);
  });
});

describe('ExtensionRegistry refuses two owners for one challenge parameter', () => {
  const context = { status: 401, resource: 'https://mcp.example.com', revision: '2026-07-28' } as const;

  it('refuses fixed parameters that differ only by case with challenge_parameter_conflict', () => {
    const error = composeError([
      extension(A, { resourceServer: { challengeParameters: { tenant: 'a' } } }),
      extension(B, { resourceServer: { challengeParameters: { Tenant: 'b' } } }),
    ]);
    expect([error.code, error.extensionIds, error.subject]).toEqual([
      'challenge_parameter_conflict',
      [A, B],
      'Tenant',
    ]);
  });

  it.each(['realm', 'scope', 'error', 'error_description', 'error_uri', 'Resource_Metadata'])(
    'refuses the parameter %s, which the host keeps, with challenge_parameter_conflict',
    (name) => {
      const error = composeError([
        extension(A, { resourceServer: { challengeParameters: { [name]: 'x' } } }),
      ]);
      expect([error.code, error.subject]).toEqual(['challenge_parameter_conflict', name]);
    },
  );

  it('refuses a computed parameter that clashes when the challenge is built', () => {
    const registry = new ExtensionRegistry([
      extension(A, { resourceServer: { challengeParameters: { tenant: 'a' } } }),
      extension(B, { resourceServer: { challengeParameters: ({ status }) => ({ tenant: String(status) }) } }),
    ]);
    const error = caught(() => registry.challengeParameters(context));
    expect([error.code, error.extensionIds]).toEqual(['challenge_parameter_conflict', [A, B]]);
  });
});

describe('ExtensionRegistry refuses token claims that are not its extensions to set', () => {
  it.each(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'client_id', 'scope'])(
    'composes an extension returning the registered claim %s, then refuses it on the call with reserved_claim',
    async (claim) => {
      const registry = new ExtensionRegistry([
        extension(A, { authorizationServer: { tokenClaims: () => ({ tenant: 'acme', [claim]: 'forged' }) } }),
      ]);
      const error = await caughtAsync(() => registry.tokenClaims(CLAIMS_CONTEXT));
      expect([error.code, error.extensionIds, error.subject]).toEqual(['reserved_claim', [A], claim]);
    },
  );

  it('refuses a claim two extensions set with claim_conflict, naming both', async () => {
    const claims = (): JsonObject => ({ tenant: 'acme' });
    const registry = new ExtensionRegistry([
      extension(B, { authorizationServer: { tokenClaims: claims } }),
      extension(A, { authorizationServer: { tokenClaims: async () => claims() } }),
    ]);
    const error = await caughtAsync(() => registry.tokenClaims(CLAIMS_CONTEXT));
    expect([error.code, error.extensionIds, error.subject]).toEqual(['claim_conflict', [A, B], 'tenant']);
  });
});

describe('ExtensionRegistry takes one proof of possession per side', () => {
  const resourceProof = {
    scheme: 'DPoP',
    algorithms: ['ES256'],
    required: false,
    binds: () => true,
    verifyRequest: async () => undefined,
  };

  it('refuses two extensions proving possession on one side with proof_of_possession_conflict, naming both', () => {
    const error = composeError([
      extension(B, { resourceServer: { proofOfPossession: resourceProof } }),
      extension(A, { resourceServer: { proofOfPossession: resourceProof } }),
    ]);
    expect([error.code, error.extensionIds]).toEqual(['proof_of_possession_conflict', [A, B]]);
  });

  it('hands out the one it has, per side, and nothing for the other sides', () => {
    const registry = new ExtensionRegistry([
      extension(A, { resourceServer: { proofOfPossession: resourceProof } }),
      extension(B, {}),
    ]);
    expect(registry.resourceServerProofOfPossession()).toBe(resourceProof);
    expect(registry.authorizationServerProofOfPossession()).toBeUndefined();
    expect(registry.clientProofOfPossession()).toBeUndefined();
  });
});
