import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { publicJwkSet } from './jwk-set.js';

const EC = { kty: 'EC', crv: 'P-256', x: 'eA', y: 'eQ', kid: 'ec' };
const RSA = { kty: 'RSA', n: 'bg', e: 'AQAB', kid: 'rsa' };
const OKP = { kty: 'OKP', crv: 'Ed25519', x: 'eA', kid: 'ed' };

/** Any JWK-shaped member: some usable, some symmetric, private, malformed or not an object at all. */
const member = fc.oneof(
  fc.constantFrom(EC, RSA, OKP),
  fc.record({ kty: fc.constantFrom('RSA', 'EC', 'OKP'), d: fc.string() }),
  fc.record({ kty: fc.constant('oct'), k: fc.string() }),
  fc.record({ kty: fc.string() }),
  fc.jsonValue(),
);

describe('publicJwkSet', () => {
  it('keeps the asymmetric public keys of a set, in order', () => {
    expect(publicJwkSet({ keys: [EC, RSA, OKP] })).toEqual({ keys: [EC, RSA, OKP] });
  });

  it('drops symmetric keys, private keys and members that are not keys', () => {
    expect(
      publicJwkSet({
        keys: [{ kty: 'oct', k: 'c2VjcmV0' }, { ...EC, d: 'private' }, 'EC', null, [EC], RSA],
      }),
    ).toEqual({ keys: [RSA] });
  });

  it.each([
    ['no keys member', {}],
    ['an empty set', { keys: [] }],
    ['only a symmetric key', { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }],
    ['only a private key', { keys: [{ ...RSA, d: 'private' }] }],
    ['keys that is not an array', { keys: EC }],
    ['an array', [EC]],
    ['null', null],
    ['a string', '{"keys":[]}'],
  ])('is undefined for %s', (_name, value) => {
    expect(publicJwkSet(value)).toBeUndefined();
  });

  it('never throws, and returns only members of the input that are asymmetric public keys', () => {
    fc.assert(
      fc.property(fc.oneof(fc.record({ keys: fc.array(member) }), fc.anything()), (value) => {
        const set = publicJwkSet(value);
        if (set === undefined) return;
        const input = (value as { keys: unknown[] }).keys;
        expect(set.keys.length).toBeGreaterThan(0);
        for (const key of set.keys) {
          expect(input).toContain(key);
          expect(['RSA', 'EC', 'OKP']).toContain(key.kty);
          expect(key).not.toHaveProperty('d');
        }
      }),
    );
  });

  it('keeps every usable key of a set, whatever else it holds', () => {
    fc.assert(
      fc.property(fc.array(member), (keys) => {
        const usable = keys.filter((key) => key === EC || key === RSA || key === OKP);
        const set = publicJwkSet({ keys });
        // Generated records may be usable too; the constants must all be kept, in order.
        const kept = (set?.keys ?? []).filter((key) => key === EC || key === RSA || key === OKP);
        expect(kept).toEqual(usable);
      }),
    );
  });
});
