import { describe, expect, it } from '@jest/globals';
import { decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import type { SigningKeysService } from '../keys/signing-keys.service.js';
import type { UserRepository } from '../users/user.repository.js';
import type { RemoteKeySets } from '../keys/remote-key-sets.js';
import { ExtensionJwts } from './extension-jwts.service.js';

const ISSUER = 'https://as.example.com';

async function jwts() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const keys = { current: () => ({ kid: 'k1', alg: 'ES256', privateKey }) } as unknown as SigningKeysService;
  const options = {
    issuer: ISSUER,
    lifetimes: { accessToken: 300 },
  } as unknown as AuthorizationServerOptions;
  return { service: new ExtensionJwts(keys, {} as UserRepository, options, {} as RemoteKeySets), publicKey };
}

describe('ExtensionJwts.sign (GrantContext.signJwt)', () => {
  it('signs with the current key, sets iss, iat, exp and jti, and caps the lifetime at the access token lifetime', async () => {
    const { service, publicKey } = await jwts();
    const { jwt, expiresIn } = await service.sign({
      typ: 'oauth-id-jag+jwt',
      claims: { sub: 'alice', aud: 'https://other.example.com' },
      lifetime: 3600,
    });
    expect(expiresIn).toBe(300);
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: 'k1', typ: 'oauth-id-jag+jwt' });
    const { payload } = await jwtVerify(jwt, publicKey, { issuer: ISSUER, typ: 'oauth-id-jag+jwt' });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(typeof payload.jti).toBe('string');
    expect(payload.sub).toBe('alice');
  });

  it.each([
    ['the access token type', { typ: 'at+jwt' }],
    ['its media type form', { typ: 'application/AT+JWT' }],
    ["the ID token's JWT", { typ: 'JWT' }],
    ['a type that is not explicit', { typ: 'id-jag' }],
    ['a claim the host sets', { claims: { iss: 'https://evil.example.com' } }],
    ['a jti of its own', { claims: { jti: 'chosen' } }],
    ['no lifetime', { lifetime: 0 }],
    ['a fraction of a second', { lifetime: 1.5 }],
  ])('refuses %s, signing nothing', async (_, override) => {
    const { service } = await jwts();
    await expect(
      service.sign({ typ: 'oauth-id-jag+jwt', claims: { sub: 'alice' }, lifetime: 60, ...override }),
    ).rejects.toThrow(/^signJwt: /);
  });
});
