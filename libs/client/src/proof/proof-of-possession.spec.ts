import { describe, expect, it } from '@jest/globals';
import { dpopClient } from '@portcullis/extension-dpop';
import { decodeJwt } from 'jose';
import { ProofOfPossession } from './proof-of-possession.js';

function answer(status: number, headers: Record<string, string>): Response {
  return new Response(null, { status, headers });
}

describe('the client proof of possession (RFC 9449 sections 4, 8 and 9)', () => {
  const pop = (): ProofOfPossession => new ProofOfPossession(dpopClient());

  it('makes no key for a server that offers no DPoP algorithm it can use', async () => {
    expect(await pop().keyFor({})).toBeUndefined();
    expect(await pop().keyFor({ dpop_signing_alg_values_supported: ['none', 'HS256'] })).toBeUndefined();
  });

  it.each([
    ['its metadata lists DPoP algorithms', { dpop_signing_alg_values_supported: ['ES256'] }, undefined, true],
    ['its metadata requires bound tokens', { dpop_bound_access_tokens_required: true }, undefined, true],
    ['its challenge uses the DPoP scheme', {}, { schemes: ['bearer', 'dpop'] }, true],
    ['its challenge uses Bearer only and its metadata says nothing', {}, { schemes: ['bearer'] }, false],
    [
      'its metadata lists no algorithm and there is no challenge',
      { dpop_signing_alg_values_supported: [] },
      undefined,
      false,
    ],
  ])('takes a resource as accepting DPoP when %s: %s', (_, metadata, challenge, accepted) => {
    expect(pop().acceptedBy(metadata, challenge)).toBe(accepted);
  });

  it('reads a token endpoint error as a demand for a proof only for invalid_dpop_proof and use_dpop_nonce', () => {
    expect(pop().demandsProof('invalid_dpop_proof')).toBe(true);
    expect(pop().demandsProof('use_dpop_nonce')).toBe(true);
    expect(pop().demandsProof('invalid_grant')).toBe(false);
    expect(pop().demandsProof(undefined)).toBe(false);
  });

  it('makes the key with an algorithm the resource lists too, when the server offers several', async () => {
    const server = { dpop_signing_alg_values_supported: ['ES256', 'EdDSA'] };
    expect(await pop().keyFor(server, { dpop_signing_alg_values_supported: ['EdDSA'] })).toMatchObject({
      alg: 'EdDSA',
    });
    expect(await pop().keyFor(server)).toMatchObject({ alg: 'ES256' });
  });

  it('puts the latest nonce of the origin in later proofs to that origin only', async () => {
    const proofs = pop();
    const key = (await proofs.keyFor({ dpop_signing_alg_values_supported: ['ES256'] }))!;
    proofs.rememberNonce('https://as.example/token', answer(400, { 'dpop-nonce': 'first' }));
    proofs.rememberNonce('https://as.example/other', answer(200, { 'dpop-nonce': 'second' }));

    const here = decodeJwt(await proofs.proof(key, { method: 'POST', url: 'https://as.example/token?x=1' }));
    const there = decodeJwt(await proofs.proof(key, { method: 'GET', url: 'https://rs.example/mcp' }));

    expect(here).toMatchObject({ htm: 'POST', htu: 'https://as.example/token', nonce: 'second' });
    expect(there).not.toHaveProperty('nonce');
  });

  it.each(['has space', 'quote"d', 'back\\slash', ''])(
    'ignores a nonce outside the RFC 9449 8.1 syntax (%j)',
    (nonce) => {
      expect(
        pop().rememberNonce('https://as.example/token', answer(400, { 'dpop-nonce': nonce })),
      ).toBeUndefined();
    },
  );

  it('sees a nonce request only in a 401 DPoP challenge with use_dpop_nonce and a nonce', () => {
    const proofs = pop();
    const challenge = 'Bearer resource_metadata="https://r/m", DPoP error="use_dpop_nonce"';
    expect(proofs.asksForNonce(answer(401, { 'www-authenticate': challenge, 'dpop-nonce': 'n1' }))).toBe(
      true,
    );
    expect(proofs.asksForNonce(answer(401, { 'www-authenticate': challenge }))).toBe(false);
    expect(
      proofs.asksForNonce(
        answer(401, { 'www-authenticate': 'Bearer error="use_dpop_nonce"', 'dpop-nonce': 'n1' }),
      ),
    ).toBe(false);
    expect(proofs.asksForNonce(answer(403, { 'www-authenticate': challenge, 'dpop-nonce': 'n1' }))).toBe(
      false,
    );
  });
});
