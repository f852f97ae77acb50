import { beforeAll, describe, expect, it } from '@jest/globals';
import type { JsonObject } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createHmac, randomUUID } from 'node:crypto';
import { dpopClient } from '../client/dpop.client.js';
import { dpopNonces } from './dpop-nonce.js';
import { accessTokenHash, verifyDpopProof, type ProofExpectation } from './dpop-proof.check.js';
import { memoryReplayStore } from './replay-store.js';

const URL_ = 'https://mcp.example.com/mcp';
const ALGORITHMS = ['ES256', 'EdDSA', 'RS256'];
const client = dpopClient();

let key: JsonObject;
let publicJwk: JWK;
let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let jkt: string;

beforeAll(async () => {
  key = await client.generateKey('ES256');
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = await exportJWK(pair.publicKey);
  jkt = await calculateJwkThumbprint(publicJwk, 'sha256');
});

function expectation(overrides: Partial<ProofExpectation> = {}): ProofExpectation {
  const store = memoryReplayStore();
  return {
    method: 'POST',
    url: URL_,
    algorithms: ALGORITHMS,
    maxAgeSeconds: 60,
    useOnce: (jti, expiresAt) => store.useOnce(jti, expiresAt),
    ...overrides,
  };
}

/** A proof signed with the test key pair, with every claim overridable. */
async function handMade(
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT({
    htm: 'POST',
    htu: URL_,
    jti: randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk, ...header })
    .sign(privateKey);
}

async function refusal(values: string[], expected: ProofExpectation): Promise<OAuthError> {
  const error = await verifyDpopProof(values, expected).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof OAuthError)) throw new Error(`expected an OAuthError, got ${String(error)}`);
  return error;
}

function unsigned(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.`;
}

describe('verifyDpopProof', () => {
  it('accepts a proof the client made and returns the thumbprint of its key', async () => {
    const proof = await client.proof(key, { method: 'POST', url: `${URL_}?x=1#f` });
    const verified = await verifyDpopProof([proof], expectation());
    const { d: _d, ...publicPart } = key as JWK;
    expect(verified.jkt).toBe(await calculateJwkThumbprint(publicPart, 'sha256'));
  });

  it('accepts an htu that differs only by case of scheme and host and by the default port', async () => {
    const proof = await handMade({ htu: 'HTTPS://MCP.example.com:443/mcp' });
    await expect(verifyDpopProof([proof], expectation())).resolves.toMatchObject({ jkt });
  });

  it('refuses no proof and two proofs', async () => {
    const proof = await handMade();
    expect((await refusal([], expectation())).code).toBe('invalid_dpop_proof');
    expect((await refusal([proof, proof], expectation())).code).toBe('invalid_dpop_proof');
    expect((await refusal([`${proof}, ${proof}`], expectation())).code).toBe('invalid_dpop_proof');
  });

  it('refuses a proof whose typ is not dpop+jwt', async () => {
    expect((await refusal([await handMade({}, { typ: 'JWT' })], expectation())).code).toBe(
      'invalid_dpop_proof',
    );
  });

  it('refuses alg none and HS256, whatever the signature', async () => {
    const none = unsigned({ alg: 'none', typ: 'dpop+jwt', jwk: publicJwk }, { htm: 'POST', htu: URL_ });
    expect((await refusal([none], expectation())).description).toMatch(/alg/);
    const secret = Buffer.alloc(32, 7);
    const signingInput = unsigned(
      { alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: secret.toString('base64url') } },
      { htm: 'POST', htu: URL_, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) },
    ).slice(0, -1);
    const hs = `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
    expect((await refusal([hs], expectation())).description).toMatch(/alg/);
  });

  it('refuses a jwk that carries the private key', async () => {
    const privateJwk = await exportJWK(privateKey);
    const proof = await handMade({}, { jwk: privateJwk });
    expect((await refusal([proof], expectation())).description).toMatch(/public key/);
  });

  it('refuses a proof signed by another key than its jwk', async () => {
    const other = await generateKeyPair('ES256');
    const proof = await new SignJWT({
      htm: 'POST',
      htu: URL_,
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })
      .sign(other.privateKey);
    expect((await refusal([proof], expectation())).description).toMatch(/signature/);
  });

  it('refuses a wrong htm, a wrong htu, and an htu with a query', async () => {
    expect((await refusal([await handMade({ htm: 'GET' })], expectation())).description).toMatch(/htm/);
    const elsewhere = await handMade({ htu: 'https://mcp.example.com/other' });
    expect((await refusal([elsewhere], expectation())).description).toMatch(/htu/);
    const otherHost = await handMade({ htu: 'https://evil.example.com/mcp' });
    expect((await refusal([otherHost], expectation())).description).toMatch(/htu/);
    const query = await handMade({ htu: `${URL_}?a=b` });
    expect((await refusal([query], expectation())).description).toMatch(/htu/);
  });

  it('refuses a stale iat and a future iat', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await refusal([await handMade({ iat: now - 120 })], expectation())).description).toMatch(/old/);
    expect((await refusal([await handMade({ iat: now + 120 })], expectation())).description).toMatch(
      /future/,
    );
  });

  it('refuses a proof without jti', async () => {
    expect((await refusal([await handMade({ jti: undefined })], expectation())).description).toMatch(/jti/);
  });

  it('refuses the same proof twice', async () => {
    const expected = expectation();
    const proof = await handMade();
    await verifyDpopProof([proof], expected);
    expect((await refusal([proof], expected)).description).toMatch(/used before/);
  });

  it('checks ath against the access token and the key against the one the token is bound to', async () => {
    const proof = await handMade({ ath: accessTokenHash('token-a') });
    await expect(
      verifyDpopProof([proof], expectation({ accessToken: 'token-a', boundTo: jkt })),
    ).resolves.toMatchObject({ jkt });
    const wrongAth = await handMade({ ath: accessTokenHash('token-b') });
    expect((await refusal([wrongAth], expectation({ accessToken: 'token-a' }))).description).toMatch(/ath/);
    const otherKey = await handMade({ ath: accessTokenHash('token-a') });
    expect(
      (await refusal([otherKey], expectation({ accessToken: 'token-a', boundTo: 'A'.repeat(43) })))
        .description,
    ).toMatch(/bound/);
  });

  it('does not spend the jti of a proof it refuses', async () => {
    const used: string[] = [];
    const expected = expectation({
      accessToken: 'token-a',
      boundTo: 'A'.repeat(43),
      useOnce: async (jti) => (used.push(jti), true),
    });
    await refusal([await handMade({ ath: accessTokenHash('token-a') })], expected);
    expect(used).toEqual([]);
  });

  it('asks for the server nonce with use_dpop_nonce and a fresh DPoP-Nonce, then accepts it', async () => {
    const nonces = dpopNonces();
    const error = await refusal([await handMade()], expectation({ nonces }));
    expect(error.code).toBe('use_dpop_nonce');
    const nonce = error.headers['DPoP-Nonce'];
    expect(nonces.isValid(nonce ?? '')).toBe(true);
    await expect(
      verifyDpopProof([await handMade({ nonce })], expectation({ nonces })),
    ).resolves.toMatchObject({ jkt });
    expect((await refusal([await handMade({ nonce: 'made-up' })], expectation({ nonces }))).code).toBe(
      'use_dpop_nonce',
    );
  });
});

describe('dpopNonces', () => {
  it('accepts its nonce for the current and the next step only', () => {
    let now = 1_000_000_000_000;
    const nonces = dpopNonces({ secret: Buffer.alloc(32, 1), stepSeconds: 60, now: () => now });
    const nonce = nonces.current();
    now += 60_000;
    expect(nonces.isValid(nonce)).toBe(true);
    now += 60_000;
    expect(nonces.isValid(nonce)).toBe(false);
  });

  it('is shared by every instance with one secret and refuses another secret', () => {
    const a = dpopNonces({ secret: Buffer.alloc(32, 1) });
    const b = dpopNonces({ secret: Buffer.alloc(32, 1) });
    const c = dpopNonces({ secret: Buffer.alloc(32, 2) });
    expect(b.isValid(a.current())).toBe(true);
    expect(c.isValid(a.current())).toBe(false);
  });

  it('refuses a forged tag for the current step', () => {
    const nonces = dpopNonces({ secret: Buffer.alloc(32, 1) });
    const [step] = nonces.current().split('.');
    const forged = `${step}.${createHmac('sha256', Buffer.alloc(32, 9)).update(`dpop-nonce:${step}`).digest('base64url')}`;
    expect(nonces.isValid(forged)).toBe(false);
  });

  it('refuses a short secret', () => {
    expect(() => dpopNonces({ secret: Buffer.alloc(16) })).toThrow(/32 bytes/);
  });
});

describe('memoryReplayStore', () => {
  it('accepts a key once until it expires', async () => {
    let now = 0;
    const store = memoryReplayStore({ now: () => now });
    expect(await store.useOnce('k', new Date(1000))).toBe(true);
    expect(await store.useOnce('k', new Date(1000))).toBe(false);
    now = 1000;
    expect(await store.useOnce('k', new Date(2000))).toBe(true);
  });
});

describe('dpopClient', () => {
  it('picks the first algorithm of its preference the server offers, and none when it offers none', () => {
    expect(client.algorithmFor({ dpop_signing_alg_values_supported: ['RS256', 'ES256'] })).toBe('ES256');
    expect(client.algorithmFor({ dpop_signing_alg_values_supported: ['HS256'] })).toBeUndefined();
    expect(client.algorithmFor({})).toBeUndefined();
  });

  it('prefers an algorithm the resource lists too, and falls back to the server choice when they share none', () => {
    const server = { dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'PS256'] };
    expect(client.algorithmFor(server, { dpop_signing_alg_values_supported: ['PS256'] })).toBe('PS256');
    expect(client.algorithmFor(server, { dpop_signing_alg_values_supported: ['RS256'] })).toBe('ES256');
    expect(client.algorithmFor(server, { resource: 'https://mcp.example.com/mcp' })).toBe('ES256');
  });

  it.each([
    ['lists proof algorithms', true, { dpop_signing_alg_values_supported: ['ES256'] }],
    ['requires bound tokens', true, { dpop_bound_access_tokens_required: true }],
    ['lists no algorithm', false, { dpop_signing_alg_values_supported: [] }],
    ['says nothing of DPoP', false, { resource: 'https://mcp.example.com/mcp' }],
    ['says bound tokens are not required', false, { dpop_bound_access_tokens_required: false }],
  ])('reads a resource whose metadata %s as advertising DPoP: %s', (_, advertised, metadata) => {
    expect(client.advertisedBy?.(metadata)).toBe(advertised);
  });

  it('puts only the public key in the proof, and ath and nonce when given', async () => {
    const proof = await client.proof(key, {
      method: 'get',
      url: 'https://mcp.example.com/mcp?session=1',
      accessToken: 'tok',
      nonce: 'n-1',
    });
    const [header, payload] = proof
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header.jwk.d).toBeUndefined();
    expect(header.typ).toBe('dpop+jwt');
    expect(payload).toMatchObject({
      htm: 'GET',
      htu: 'https://mcp.example.com/mcp',
      ath: accessTokenHash('tok'),
      nonce: 'n-1',
    });
  });
});
