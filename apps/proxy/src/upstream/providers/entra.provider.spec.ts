import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLoopbackServer, type LoopbackServer } from '@portcullis/testing';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../proxy.options.js';
import { EntraProvider } from './entra.provider.js';
import type { UpstreamTokenResponse } from './upstream-provider.js';

const CONTOSO = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const FABRIKAM = 'f8cdef31-a31e-4b4a-93e4-5f571e91255a';
const OID = '6F1C2C44-0C5D-4B8E-9B3A-1F3C0F9D2A10';

describe('the entra provider validates ID tokens against the issuer of their own tenant', () => {
  let server: LoopbackServer;
  let key: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  let jwk: JWK;
  /** What the discovery document names as the issuer; the template unless a test says otherwise. */
  let discoveredIssuer: (base: string) => string;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    key = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = await startLoopbackServer((request, response) => {
      const base = server.url;
      const body =
        request.path === '/organizations/v2.0/.well-known/openid-configuration'
          ? {
              issuer: discoveredIssuer(base),
              authorization_endpoint: `${base}/organizations/oauth2/v2.0/authorize`,
              token_endpoint: `${base}/organizations/oauth2/v2.0/token`,
              jwks_uri: `${base}/organizations/discovery/v2.0/keys`,
              userinfo_endpoint: 'https://graph.microsoft.com/oidc/userinfo',
            }
          : { keys: [jwk] };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const provider = () =>
    new EntraProvider(
      {
        provider: { name: 'entra', baseUrl: server.url, tenant: 'organizations' },
        issuer: `${server.url}/organizations/v2.0`,
        clientId: 'app',
        scopes: ['openid', 'profile'],
        timeoutMs: 2000,
        redirectUri: 'http://localhost:9/upstream/callback',
      } satisfies UpstreamOptions,
      { baseUrl: server.url, tenant: 'organizations' },
    );

  /** The provider's identity of a token response carrying an ID token with `claims`. */
  async function identityOf(claims: Record<string, unknown>, nonce = 'n-1') {
    discoveredIssuer = (base) => `${base}/{tenantid}/v2.0`;
    const entra = provider();
    const metadata = await entra.metadata();
    const config = new oidc.Configuration(metadata, 'app');
    const now = Math.floor(Date.now() / 1000);
    const idToken = await new SignJWT({
      iss: `${server.url}/${CONTOSO}/v2.0`,
      aud: 'app',
      sub: 'pairwise-sub',
      tid: CONTOSO,
      oid: OID,
      nonce: 'n-1',
      iat: now,
      exp: now + 600,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .sign(key);
    const answer = await entra.tokenResponse(
      new Response(JSON.stringify({ access_token: 'at', token_type: 'Bearer', id_token: idToken }), {
        headers: { 'content-type': 'application/json' },
      }),
    );
    const tokens = (await answer.json()) as UpstreamTokenResponse;
    expect(tokens).not.toHaveProperty('id_token');
    return entra.identity(config, tokens, { nonce });
  }

  it('keys the person by oid within the issuer filled with their tid, and never marks the address verified', async () => {
    const identity = await identityOf({ email: 'ada@contoso.example', email_verified: true, name: 'Ada' });
    expect(identity).toMatchObject({
      issuer: `${server.url}/${CONTOSO}/v2.0`,
      subject: OID.toLowerCase(),
      tenantId: CONTOSO,
      profile: { name: 'Ada', email: 'ada@contoso.example', emailVerified: false },
    });
  });

  it("refuses a token whose iss names another tenant than its tid, another audience, or another sign-in's nonce", async () => {
    await expect(identityOf({ iss: `${server.url}/${FABRIKAM}/v2.0` })).rejects.toMatchObject({
      name: 'UpstreamError',
    });
    await expect(identityOf({ iss: `${server.url}/{tenantid}/v2.0` })).rejects.toMatchObject({
      name: 'UpstreamError',
    });
    await expect(identityOf({ tid: 'not-a-guid' })).rejects.toMatchObject({ name: 'UpstreamError' });
    await expect(identityOf({ aud: 'another-app' })).rejects.toMatchObject({ name: 'UpstreamError' });
    await expect(identityOf({}, 'n-2')).rejects.toMatchObject({ name: 'UpstreamError' });
    await expect(identityOf({ oid: undefined })).rejects.toMatchObject({ name: 'UpstreamError' });
  });

  it('refuses discovery naming an issuer other than the template, and hands an error answer on unchanged', async () => {
    discoveredIssuer = () => `https://login.evil.example/${CONTOSO}/v2.0`;
    await expect(provider().metadata()).rejects.toMatchObject({ name: 'UpstreamError' });
    const error = JSON.stringify({ error: 'invalid_grant', error_description: 'AADSTS70008' });
    const answer = await provider().tokenResponse(
      new Response(error, { status: 400, headers: { 'content-type': 'application/json' } }),
    );
    expect(answer.status).toBe(400);
    expect(await answer.text()).toBe(error);
  });
});
