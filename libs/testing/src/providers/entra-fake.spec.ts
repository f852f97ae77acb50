import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startEntraFake, type EntraFake } from './entra-fake.js';
import type { OidcFakeClient } from './oidc-fake.js';

const REDIRECT_URI = 'http://127.0.0.1:9/upstream/callback';
const VERIFIER = 'v'.repeat(43);
const CONTOSO = '72f988bf-86f1-41af-91ab-2d7cd011db47';

describe('the Entra fake keeps the quirks of Entra it is written from', () => {
  let entra: EntraFake;
  let client: OidcFakeClient;

  beforeAll(async () => {
    entra = await startEntraFake({
      users: [{ login: 'ada@contoso.example', oid: '00000000-0000-0000-0000-0000000000ad', tid: CONTOSO }],
    });
    client = entra.registerClient({ redirectUris: [REDIRECT_URI] });
  });
  afterAll(async () => {
    await entra?.close();
  });

  const post = (path: string, body: Record<string, string>) =>
    fetch(`${entra.baseUrl}${path}`, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });

  function authorizeUrl(tenant: string, extra: Record<string, string> = {}): URL {
    const url = new URL(`${entra.baseUrl}/${tenant}/oauth2/v2.0/authorize`);
    url.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile offline_access',
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    return url;
  }

  it('names the {tenantid} template issuer for common, and fills it with the tid in the ID token', async () => {
    const common = (await (
      await fetch(`${entra.baseUrl}/common/v2.0/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(common['issuer']).toBe(`${entra.baseUrl}/{tenantid}/v2.0`);
    expect(common).not.toHaveProperty('code_challenge_methods_supported');
    const own = (await (
      await fetch(`${entra.baseUrl}/${CONTOSO}/v2.0/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(own['issuer']).toBe(`${entra.baseUrl}/${CONTOSO}/v2.0`);

    const page = await (await fetch(authorizeUrl('common'))).text();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(page)![1]!;
    await post('/fake/session', { authorization, login: 'ada@contoso.example' });
    const back = await post('/fake/oauth/approve', { authorization, authorize: '1' });
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const body = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    };
    const auth = { client_id: client.clientId, client_secret: client.clientSecret };
    // A resource parameter is refused, and the code survives the refusal.
    const withResource = await post('/common/oauth2/v2.0/token', { ...body, ...auth, resource: 'https://x' });
    expect(withResource.status).toBe(400);
    expect(await withResource.json()).toMatchObject({ error: 'invalid_request' });
    const tokens = (await (await post('/common/oauth2/v2.0/token', { ...body, ...auth })).json()) as Record<
      string,
      unknown
    >;
    expect(typeof tokens['refresh_token']).toBe('string');
    const claims = decodeJwt(String(tokens['id_token']));
    expect(claims).toMatchObject({ iss: `${entra.baseUrl}/${CONTOSO}/v2.0`, tid: CONTOSO });
    expect(claims['sub']).not.toBe(claims['oid']);
  });

  it('sends a resource parameter back as an error, and keeps a person to their own tenant', async () => {
    const refused = await fetch(authorizeUrl('organizations', { resource: 'https://graph.microsoft.com' }), {
      redirect: 'manual',
    });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const page = await (await fetch(authorizeUrl('consumers'))).text();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(page)![1]!;
    expect((await post('/fake/session', { authorization, login: 'ada@contoso.example' })).status).toBe(401);
  });
});
