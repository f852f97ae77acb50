import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import {
  decodeJwtAssertion,
  MAX_JTI_LENGTH,
  verifyJwtAssertion,
  type JwtAssertionPolicy,
  type RecordJwtId,
} from './jwt-assertion.js';
import { ASYMMETRIC_SIGNING_ALGORITHMS } from './jws-algorithms.js';
import { OAuthError } from './oauth-error.js';

const ISSUER = 'https://idp.example.com';
const AUDIENCE = 'https://as.example.com';
const now = () => Math.floor(Date.now() / 1000);

let key: CryptoKey;
let jwk: JWK;
let other: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
  other = (await generateKeyPair('ES256')).privateKey;
});

interface Claims {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string;
  readonly iat?: number;
  readonly exp?: number;
  readonly jti?: string | null;
  readonly typ?: string;
  readonly kid?: string | null;
  readonly signer?: CryptoKey;
}

async function jwt(claims: Claims = {}): Promise<string> {
  const signed = new SignJWT({})
    .setProtectedHeader({
      alg: 'ES256',
      ...(claims.kid === null ? {} : { kid: claims.kid ?? 'k1' }),
      ...(claims.typ ? { typ: claims.typ } : {}),
    })
    .setIssuer(claims.iss ?? ISSUER)
    .setSubject(claims.sub ?? 'alice')
    .setAudience(claims.aud ?? AUDIENCE)
    .setIssuedAt(claims.iat ?? now())
    .setExpirationTime(claims.exp ?? now() + 120);
  if (claims.jti !== null) signed.setJti(claims.jti ?? randomUUID());
  return signed.sign(claims.signer ?? key);
}

function unsigned(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.${header['alg'] === 'none' ? '' : 'c2lnbmF0dXJl'}`;
}

function policy(overrides: Partial<JwtAssertionPolicy> = {}): JwtAssertionPolicy {
  return {
    parameter: 'assertion',
    error: 'invalid_grant',
    keys: { jwks: { keys: [jwk] } },
    signer: 'the identity provider',
    issuer: ISSUER,
    audience: [AUDIENCE, `${AUDIENCE}/token`],
    ...overrides,
  };
}

/** The OAuthError a promise rejects with, as `code: description`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof OAuthError)) return `not an OAuthError: ${String(error)}`;
  return `${error.code}: ${error.description}`;
}

describe('verifyJwtAssertion', () => {
  it('returns the claims of an assertion that passes every check, and records nothing by itself', async () => {
    const verified = await verifyJwtAssertion(await jwt({ aud: `${AUDIENCE}/token` }), policy());
    expect(verified.claims).toMatchObject({ iss: ISSUER, sub: 'alice', aud: `${AUDIENCE}/token` });
    expect(verified.header).toMatchObject({ alg: 'ES256', kid: 'k1' });
    expect(verified.expiresAt.getTime()).toBe((verified.claims.exp + 30) * 1000);
  });

  it('records the jti once, until exp plus the clock skew, and refuses it the second time', async () => {
    const used = new Map<string, Date>();
    const record: RecordJwtId = async (namespace, jti, expiresAt) => {
      if (used.has(`${namespace} ${jti}`)) return false;
      used.set(`${namespace} ${jti}`, expiresAt);
      return true;
    };
    const assertion = await jwt({ jti: 'once' });
    const first = await verifyJwtAssertion(assertion, policy());
    await first.useOnce(record, ISSUER);
    expect(used.get(`${ISSUER} once`)).toEqual(first.expiresAt);
    const second = await verifyJwtAssertion(assertion, policy());
    expect(await refusal(second.useOnce(record, ISSUER))).toBe('invalid_grant: assertion was already used');
    const withoutJti = await verifyJwtAssertion(await jwt({ jti: null }), policy());
    expect(await refusal(withoutJti.useOnce(record, ISSUER))).toBe('invalid_grant: assertion needs a jti');
    expect(used.size).toBe(1);
  });

  it('compares typ as RFC 7515 4.1.9 says: case-insensitively, application/ optional', async () => {
    const typed = policy({ typ: 'oauth-id-jag+jwt' });
    for (const typ of ['oauth-id-jag+jwt', 'application/OAUTH-ID-JAG+JWT']) {
      await expect(verifyJwtAssertion(await jwt({ typ }), typed)).resolves.toBeDefined();
    }
    expect(await refusal(verifyJwtAssertion(await jwt({ typ: 'JWT' }), typed))).toBe(
      'invalid_grant: assertion typ must be oauth-id-jag+jwt',
    );
    expect(await refusal(verifyJwtAssertion(await jwt(), typed))).toBe(
      'invalid_grant: assertion typ must be oauth-id-jag+jwt',
    );
  });

  it('tries each key when several match a header without kid', async () => {
    const second = await generateKeyPair('ES256', { extractable: true });
    const secondJwk = { ...(await exportJWK(second.publicKey)), alg: 'ES256' };
    const keys = { jwks: { keys: [{ ...jwk, kid: undefined }, secondJwk] } };
    for (const signer of [key, second.privateKey]) {
      await expect(
        verifyJwtAssertion(await jwt({ kid: null, signer }), policy({ keys })),
      ).resolves.toBeDefined();
    }
    expect(await refusal(verifyJwtAssertion(await jwt({ kid: null, signer: other }), policy({ keys })))).toBe(
      'invalid_grant: assertion is not signed by the identity provider',
    );
  });

  describe('refuses with the policy’s error, naming the claim at fault', () => {
    const cases: ReadonlyArray<[string, () => Promise<string>, Partial<JwtAssertionPolicy>, string]> = [
      ['something that is not a JWT', async () => 'not-a-jwt', {}, 'is not a JWT'],
      [
        'alg none',
        async () => unsigned({ alg: 'none' }, { iss: ISSUER, sub: 'a', aud: AUDIENCE, exp: now() + 60 }),
        {},
        `must be signed with one of ${ASYMMETRIC_SIGNING_ALGORITHMS.join(', ')}`,
      ],
      [
        'an HMAC',
        async () => unsigned({ alg: 'HS256' }, { iss: ISSUER, sub: 'a', aud: AUDIENCE, exp: now() + 60 }),
        {},
        `must be signed with one of ${ASYMMETRIC_SIGNING_ALGORITHMS.join(', ')}`,
      ],
      [
        'a key the signer does not hold',
        () => jwt({ signer: other }),
        {},
        'is not signed by the identity provider',
      ],
      ['a kid the set does not have', () => jwt({ kid: 'k2' }), {}, 'is not signed by the identity provider'],
      ['another issuer', () => jwt({ iss: 'https://rogue.example.com' }), {}, 'iss is not valid'],
      ['another audience', () => jwt({ aud: 'https://other.example.com' }), {}, 'aud is not valid'],
      ['another subject', () => jwt({ sub: 'mallory' }), { subject: 'alice' }, 'sub is not valid'],
      ['an expired assertion', () => jwt({ iat: now() - 600, exp: now() - 31 }), {}, 'has expired'],
      ['no jti where one is required', () => jwt({ jti: null }), { jti: 'required' }, 'has no jti'],
      ['a missing required claim', () => jwt(), { requiredClaims: ['client_id'] }, 'has no client_id'],
      ['an iat in the future', () => jwt({ iat: now() + 120, exp: now() + 300 }), {}, 'iat is in the future'],
      [
        'a lifetime beyond the maximum',
        () => jwt({ exp: now() + 7200 }),
        { maxLifetimeSeconds: 3600 },
        'lifetime exceeds 3600 seconds',
      ],
      [
        'an exp too far ahead',
        () => jwt({ exp: now() + 3600 }),
        { maxExpiresInSeconds: 300 },
        'must expire within 300 seconds',
      ],
      [
        'a jti that is too long',
        () => jwt({ jti: 'j'.repeat(MAX_JTI_LENGTH + 1) }),
        {},
        `jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`,
      ],
    ];

    it.each(cases)('%s', async (_name, make, overrides, problem) => {
      const assertion = await make();
      expect(await refusal(verifyJwtAssertion(assertion, policy(overrides)))).toBe(
        `invalid_grant: assertion ${problem}`,
      );
      expect(
        await refusal(
          verifyJwtAssertion(
            assertion,
            policy({ ...overrides, parameter: 'client_assertion', error: 'invalid_client' }),
          ),
        ),
      ).toBe(`invalid_client: client_assertion ${problem}`);
    });

    it('allows 30 seconds of clock skew on exp, and no more', async () => {
      await expect(
        verifyJwtAssertion(await jwt({ iat: now() - 600, exp: now() - 20 }), policy()),
      ).resolves.toBeDefined();
      expect(
        await refusal(verifyJwtAssertion(await jwt({ iat: now() - 600, exp: now() - 40 }), policy())),
      ).toBe('invalid_grant: assertion has expired');
    });
  });

  describe('with keys at a jwks_uri', () => {
    it('asks the fetcher for the set and the kid, and verifies with what it returns', async () => {
      const asked: Array<[string, string | undefined]> = [];
      const verified = await verifyJwtAssertion(
        await jwt(),
        policy({
          keys: {
            jwksUri: 'https://idp.example.com/jwks',
            fetchJwks: async (uri, kid) => {
              asked.push([uri, kid]);
              return { keys: [jwk] };
            },
          },
        }),
      );
      expect(verified.claims.sub).toBe('alice');
      expect(asked).toEqual([['https://idp.example.com/jwks', 'k1']]);
    });

    it('fails closed without a fetcher, when the fetch fails, and for a set of no usable key', async () => {
      const failure = new Error('connect ECONNREFUSED');
      const closed: JwtAssertionPolicy['keys'][] = [
        { jwksUri: 'https://idp.example.com/jwks', fetchJwks: undefined },
        {
          jwksUri: 'https://idp.example.com/jwks',
          fetchJwks: async () => {
            throw failure;
          },
        },
        {
          jwksUri: 'https://idp.example.com/jwks',
          fetchJwks: async () => ({ keys: [{ ...jwk, d: 'private' }] }),
        },
        { jwks: { keys: [{ kty: 'oct', k: randomBytes(32).toString('base64url') }] } },
      ];
      const assertion = await jwt();
      for (const keys of closed) {
        expect(await refusal(verifyJwtAssertion(assertion, policy({ keys })))).toBe(
          'invalid_grant: assertion could not be verified',
        );
      }
      const error = await verifyJwtAssertion(assertion, policy({ keys: closed[1]! })).catch(
        (thrown: unknown) => thrown,
      );
      expect((error as Error).cause).toBe(failure);
    });

    it('fetches nothing for an assertion whose algorithm is refused', async () => {
      let fetched = 0;
      const keys = {
        jwksUri: 'https://idp.example.com/jwks',
        fetchJwks: async () => {
          fetched += 1;
          return { keys: [jwk] };
        },
      };
      const hmac = unsigned({ alg: 'HS256' }, { iss: ISSUER, sub: 'a', aud: AUDIENCE, exp: now() + 60 });
      expect(await refusal(verifyJwtAssertion(hmac, policy({ keys })))).toMatch(/^invalid_grant: /);
      expect(fetched).toBe(0);
    });
  });

  it('answers anything that is not a valid assertion with the policy’s OAuthError, never another error', async () => {
    const part = fc.oneof(
      fc.base64String().map((text) => text.replace(/[=]/g, '').replace(/\+/g, '-').replace(/\//g, '_')),
      fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')),
      fc
        .record({
          alg: fc.constantFrom('ES256', 'none', 'HS256', 'RS256'),
          kid: fc.string(),
          typ: fc.string(),
        })
        .map((header) => Buffer.from(JSON.stringify(header)).toString('base64url')),
    );
    const candidate = fc.oneof(
      fc.string(),
      fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.')),
    );
    await fc.assert(
      fc.asyncProperty(candidate, async (assertion) => {
        expect(await refusal(verifyJwtAssertion(assertion, policy()))).toMatch(/^invalid_grant: assertion /);
      }),
      { numRuns: 200 },
    );
  });
});

describe('decodeJwtAssertion', () => {
  it('decodes the header and claims without verifying them', async () => {
    const decoded = decodeJwtAssertion(await jwt({ signer: other }), policy());
    expect(decoded.header.kid).toBe('k1');
    expect(decoded.claims.iss).toBe(ISSUER);
  });

  it('throws the policy’s error for anything that is not a compact JWT', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(text.split('.').length !== 3);
        expect(() =>
          decodeJwtAssertion(text, { parameter: 'client_assertion', error: 'invalid_client' }),
        ).toThrow(new OAuthError('invalid_client', 'client_assertion is not a JWT'));
      }),
    );
  });
});
