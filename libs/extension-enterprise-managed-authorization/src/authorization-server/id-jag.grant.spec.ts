import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { GrantContext, GrantRequest, IssueTokensRequest, JsonObject } from '@portcullis/extensions';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { idJagGrant } from './id-jag.grant.js';
import type { TrustedIdentityProvider } from './trusted-identity-providers.js';

const ISSUER = 'https://as.example.com';
const IDP = 'https://idp.example.com';
const IDP_JWKS = `${IDP}/jwks`;
const RESOURCE = 'https://mcp.example.com';
const CLIENT = { clientId: 'c', metadata: {}, authenticationMethod: 'client_secret_basic' };

let key: CryptoKey;
let jwk: JWK & { kty: 'EC' };

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kty: 'EC', kid: 'k', alg: 'ES256' };
});

function idJag(iss = IDP, typ = 'oauth-id-jag+jwt'): Promise<string> {
  return new SignJWT({ client_id: CLIENT.clientId, resource: RESOURCE })
    .setProtectedHeader({ alg: 'ES256', kid: 'k', typ })
    .setIssuer(iss)
    .setAudience(ISSUER)
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('5m')
    .setJti(randomUUID())
    .sign(key);
}

/** The grant over a host that records what is used up and issued; `host` replaces some of its members. */
function harness(trusted: readonly TrustedIdentityProvider[], host: Partial<GrantContext> = {}) {
  const grant = idJagGrant(trusted);
  const used: string[] = [];
  const issued: IssueTokensRequest[] = [];
  const jwksAsked: Array<[string, string | undefined]> = [];
  const context: GrantContext = {
    issuer: ISSUER,
    revision: '2026-07-28',
    issueTokens: async (request) => {
      issued.push(request);
      return { access_token: 'at', token_type: 'Bearer' };
    },
    useOnce: async (_, jti) => {
      if (used.includes(jti)) return false;
      used.push(jti);
      return true;
    },
    signJwt: async () => {
      throw new Error('not here');
    },
    verifyIdToken: async () => undefined,
    fetchJwks: async (uri, kid) => {
      jwksAsked.push([uri, kid]);
      return { keys: [jwk as JsonObject] };
    },
    ...host,
  };
  const redeem = (assertion: string) => {
    const request: GrantRequest = {
      grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      params: { assertion },
      resources: [],
      client: CLIENT,
    };
    return grant(request, context);
  };
  return { redeem, used, issued, jwksAsked };
}

describe('idJagGrant', () => {
  it("refuses an ID-JAG this server issued itself, before anything is used up (the draft's Cross-Domain Use)", async () => {
    // Even a configuration that trusts this server's own keys is not enough.
    const { redeem, used, issued } = harness([{ issuer: ISSUER, jwks: { keys: [jwk] } }]);
    await expect(redeem(await idJag(ISSUER))).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(used).toEqual([]);
    expect(issued).toEqual([]);
  });

  it('verifies with the keys the host fetches from the identity provider’s jwks_uri, and uses the ID-JAG once', async () => {
    const { redeem, used, issued, jwksAsked } = harness([{ issuer: IDP, jwks_uri: IDP_JWKS }]);
    const assertion = await idJag();
    expect((await redeem(assertion)).access_token).toBe('at');
    expect(jwksAsked).toEqual([[IDP_JWKS, 'k']]);
    expect(issued).toEqual([
      { subject: `${IDP}#alice`, scope: [], resources: [RESOURCE], refreshToken: false },
    ]);
    await expect(redeem(assertion)).rejects.toMatchObject({
      code: 'invalid_grant',
      description: 'assertion was already used',
    });
    expect([used.length, issued.length]).toEqual([1, 1]);
  });

  it('takes the typ in any case and with application/, as RFC 7515 4.1.9 compares it (and as it is selected)', async () => {
    const { redeem, issued } = harness([{ issuer: IDP, jwks: { keys: [jwk] } }]);
    await redeem(await idJag(IDP, 'application/OAuth-ID-JAG+JWT'));
    expect(issued).toHaveLength(1);
  });

  it('refuses, using nothing up, an identity provider’s jwks_uri on a host that fetches no key sets', async () => {
    const { redeem, used, issued } = harness([{ issuer: IDP, jwks_uri: IDP_JWKS }], { fetchJwks: undefined });
    await expect(redeem(await idJag())).rejects.toMatchObject({
      code: 'invalid_grant',
      description: 'assertion could not be verified',
    });
    expect([used, issued]).toEqual([[], []]);
  });
});
