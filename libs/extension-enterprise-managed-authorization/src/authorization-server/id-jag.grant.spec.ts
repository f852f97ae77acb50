import { describe, expect, it } from '@jest/globals';
import type { GrantContext } from '@portcullis/extensions';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { idJagGrant } from './id-jag.grant.js';

const ISSUER = 'https://as.example.com';

describe('idJagGrant', () => {
  it("refuses an ID-JAG this server issued itself, before anything is used up (the draft's Cross-Domain Use)", async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kty: 'EC' as const, kid: 'k', alg: 'ES256' };
    // Even a configuration that trusts this server's own keys is not enough.
    const grant = idJagGrant([{ issuer: ISSUER, jwks: { keys: [jwk] } }]);
    const assertion = await new SignJWT({ client_id: 'c', resource: 'https://mcp.example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k', typ: 'oauth-id-jag+jwt' })
      .setIssuer(ISSUER)
      .setAudience(ISSUER)
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti('j1')
      .sign(privateKey);
    const used: string[] = [];
    const issued: unknown[] = [];
    const context: GrantContext = {
      issuer: ISSUER,
      revision: '2026-07-28',
      issueTokens: async (request) => {
        issued.push(request);
        return { access_token: 'at', token_type: 'Bearer' };
      },
      useOnce: async (_, jti) => {
        used.push(jti);
        return true;
      },
      signJwt: async () => {
        throw new Error('not here');
      },
      verifyIdToken: async () => undefined,
    };
    await expect(
      grant(
        {
          grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          params: { assertion },
          resources: [],
          client: { clientId: 'c', metadata: {}, authenticationMethod: 'client_secret_basic' },
        },
        context,
      ),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(used).toEqual([]);
    expect(issued).toEqual([]);
  });
});
