import { describe, expect, it } from '@jest/globals';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { signJwt, type JwtClaims } from './jwt-signer.js';

const CLAIMS: JwtClaims = {
  client_id: 'client-1',
  scope: 'notes:read',
  iss: 'https://as.example',
  sub: 'user-1',
  aud: 'https://mcp.example/mcp',
  iat: 1_800_000_000,
  exp: 1_800_000_300,
  jti: 'c0ffee',
};

describe('signJwt', () => {
  it('signs ES256 so that jose verifies it, with the header and claims jose would write', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const header = { alg: 'ES256', kid: 'key-1', typ: 'at+jwt' };
    const token = await signJwt(header, CLAIMS, privateKey);

    const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
      algorithms: ['ES256'],
      typ: 'at+jwt',
      currentDate: new Date(1_800_000_100_000),
    });
    expect(protectedHeader).toEqual(header);
    expect(payload).toEqual(CLAIMS);
    // RFC 7518 3.4: R || S, 32 octets each, not DER.
    expect(Buffer.from(token.split('.')[2]!, 'base64url')).toHaveLength(64);
    const fromJose = await new SignJWT({ ...CLAIMS }).setProtectedHeader(header).sign(privateKey);
    expect(token.split('.').slice(0, 2)).toEqual(fromJose.split('.').slice(0, 2));
  });

  it('signs ES256 with a key that is not extractable (through jose), the same header and claims', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    expect(privateKey.extractable).toBe(false);
    const header = { alg: 'ES256', kid: 'key-1', typ: 'at+jwt' };
    const token = await signJwt(header, CLAIMS, privateKey);
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
      currentDate: new Date(1_800_000_100_000),
    });
    expect(protectedHeader).toEqual(header);
    expect(payload).toEqual(CLAIMS);
  });

  it('refuses an ES256 header over a key that is not P-256', async () => {
    const { privateKey } = await generateKeyPair('ES384', { extractable: true });
    await expect(signJwt({ alg: 'ES256', kid: 'key-1', typ: 'JWT' }, CLAIMS, privateKey)).rejects.toThrow(
      'P-256',
    );
  });

  it('signs any other algorithm through jose', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA');
    const token = await signJwt({ alg: 'EdDSA', kid: 'key-2', typ: 'JWT' }, CLAIMS, privateKey);
    const { payload } = await jwtVerify(token, publicKey, { currentDate: new Date(1_800_000_100_000) });
    expect(payload).toEqual(CLAIMS);
  });
});
