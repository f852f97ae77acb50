import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';
import { parseWwwAuthenticate } from '@portcullis/protocol';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createResourceServer, type ResourceServer } from '../../src/index.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';

interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly jkt: string;
}

async function createDpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

/** An RFC 9449 Section 4.2 proof for `method` at `url`, for `token`. */
function proof(key: DpopKey, method: string, url: string, token: string): Promise<string> {
  return new SignJWT({
    jti: randomUUID(),
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    ath: createHash('sha256').update(token).digest('base64url'),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk })
    .sign(key.privateKey);
}

describe('protect with DPoP composed (RFC 9449 Section 7)', () => {
  let as: TestAuthorizationServer;
  let resourceServer: ResourceServer;
  let key: DpopKey;
  let calls: number;
  const handler = async () => {
    calls += 1;
    return new Response('ok');
  };

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    key = await createDpopKey();
    resourceServer = createResourceServer({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      extensions: ExtensionRegistry.compose([dpopExtension({ authorizationServer: false, client: false })]),
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  const request = (headers: Record<string, string>) =>
    new Request(RESOURCE, { method: 'POST', headers, body: '{}' });

  it('publishes the DPoP fields and challenges with Bearer and DPoP', async () => {
    expect(resourceServer.metadataDocument()).toMatchObject({
      dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']),
      dpop_bound_access_tokens_required: false,
    });
    calls = 0;
    const response = await resourceServer.protect(handler)(request({}));
    expect(response.status).toBe(401);
    const schemes = parseWwwAuthenticate(response.headers.get('www-authenticate')!).map((c) => c.scheme);
    expect(schemes).toEqual(['bearer', 'dpop']);
    expect(calls).toBe(0);
  });

  it('accepts a bound token with its proof, and refuses the same proof again as invalid_dpop_proof', async () => {
    calls = 0;
    const token = await as.mint({ claims: { cnf: { jkt: key.jkt } } });
    const dpop = await proof(key, 'POST', RESOURCE, token);
    const protectedHandler = resourceServer.protect(handler);
    const accepted = await protectedHandler(request({ authorization: `DPoP ${token}`, dpop }));
    expect(accepted.status).toBe(200);
    const replayed = await protectedHandler(request({ authorization: `DPoP ${token}`, dpop }));
    expect(replayed.status).toBe(401);
    const [bearerChallenge, dpopChallenge] = parseWwwAuthenticate(replayed.headers.get('www-authenticate')!);
    expect(bearerChallenge?.params['error']).toBeUndefined();
    expect(dpopChallenge?.params['error']).toBe('invalid_dpop_proof');
    expect(calls).toBe(1);
  });

  it('refuses a bound token presented as Bearer, and two DPoP header fields, before the handler', async () => {
    calls = 0;
    const token = await as.mint({ claims: { cnf: { jkt: key.jkt } } });
    const asBearer = await resourceServer.protect(handler)(request({ authorization: `Bearer ${token}` }));
    expect(asBearer.status).toBe(401);
    expect(((await asBearer.json()) as { error: string }).error).toBe('invalid_token');

    const headers = new Headers({ authorization: `DPoP ${token}` });
    headers.append('dpop', await proof(key, 'POST', RESOURCE, token));
    headers.append('dpop', await proof(key, 'POST', RESOURCE, token));
    const twoProofs = await resourceServer.protect(handler)(
      new Request(RESOURCE, { method: 'POST', headers, body: '{}' }),
    );
    expect(twoProofs.status).toBe(401);
    expect(((await twoProofs.json()) as { error: string }).error).toBe('invalid_dpop_proof');
    expect(calls).toBe(0);
  });
});
