// What a real plug-in needs from the host, over real HTTP and the real login and consent pages: an authorization
// request check (RFC 6749 4.1.1) that reads a `tenant` parameter and attaches it to the authorization, and a claims
// hook (RFC 9068 2.2) that puts it in the access token. The attachment is kept with the pending authorization through
// sign-in and consent, then with the grant, so the refreshed access token carries it too (RFC 6749 6). The hook sees
// the user (`sub`, OpenID Connect `auth_time`, RFC 8176 `amr`), the grant, the client and the request's parameters;
// an attachment is its extension's alone. A refused tenant is answered at the client's redirect URI (RFC 6749
// 4.1.2.1) and leaves nothing behind.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ClientRepository } from '@portcullis/authorization';
import {
  defineExtension,
  ExtensionRegistry,
  type JsonObject,
  type TokenClaimsContext,
} from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import { HeadlessUserAgent } from '@portcullis/testing';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { AppModule } from '../../src/app.module.js';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const TENANT_ID = 'com.example/tenant-selection';
const TENANTS = ['acme', 'globex'];

/** Every context the claims hooks were called with, by extension. */
const seen: { tenant: TokenClaimsContext[]; observer: TokenClaimsContext[] } = { tenant: [], observer: [] };

/** The toy plug-in: `tenant` chosen at /authorize, checked, attached, and claimed in every token of the grant. */
const tenantSelection = defineExtension({
  id: TENANT_ID,
  version: '1.0.0',
  authorizationServer: {
    metadata: { tenants_supported: TENANTS },
    authorizationRequestChecks: [
      {
        name: 'tenant',
        check: ({ params }) => {
          const tenant = params['tenant'];
          if (tenant === undefined) return undefined;
          if (!TENANTS.includes(tenant)) {
            throw new OAuthError('invalid_request', 'tenant is not one of tenants_supported');
          }
          return { tenant };
        },
      },
    ],
    tokenClaims: (context): JsonObject => {
      seen.tenant.push(context);
      const tenant = context.attachments['tenant'];
      return typeof tenant === 'string' ? { tenant } : {};
    },
  },
});

/** A second extension with a claims hook of its own, which must not see the first one's attachments. */
const observer = defineExtension({
  id: 'com.example/observer',
  version: '1.0.0',
  authorizationServer: {
    tokenClaims: (context) => {
      seen.observer.push(context);
      return {};
    },
  },
});

async function verified(as: AuthorizationServerFixture, token: unknown): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token as string, createRemoteJWKSet(new URL(`${as.issuer}/jwks`)), {
    issuer: as.issuer,
    audience: RESOURCE,
    typ: 'at+jwt',
  });
  return payload;
}

describe('a tenant chosen at /authorize, attached by an extension check and claimed by its claims hook', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      appModule: {
        configure: (env, overrides) =>
          AppModule.configure(env, overrides, {
            extensions: ExtensionRegistry.compose([tenantSelection, observer]),
          }),
      },
    });
  });
  afterAll(async () => {
    await as?.close();
  });
  beforeEach(() => {
    seen.tenant.length = 0;
    seen.observer.length = 0;
  });

  it('ends up in the access token after sign-in and consent, and in the refreshed one', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const request = authorizationRequest(as, client, { tenant: 'globex' });
    // A new browser: the sign-in and consent pages come between /authorize and the code, so the attachment travels
    // with the stored pending authorization.
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const code = await redeem(as, client, callback, request);
    expect(code.status).toBe(200);
    expect(await verified(as, code.body['access_token'])).toMatchObject({ tenant: 'globex', sub: user.id });

    const refresh = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: code.body['refresh_token'] as string,
      client_id: client.clientId,
      resource: RESOURCE,
    });
    expect(refresh.status).toBe(200);
    expect(await verified(as, refresh.body['access_token'])).toMatchObject({
      tenant: 'globex',
      sub: user.id,
    });

    // Both tokens' hooks saw the same authorization: the user, the grant, the client and the request.
    const [grant] = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    const registered = await new ClientRepository(as.prisma).find(client.clientId);
    expect(seen.tenant.map(({ grantType }) => grantType)).toEqual(['authorization_code', 'refresh_token']);
    for (const context of seen.tenant) {
      expect(context).toMatchObject({
        clientId: client.clientId,
        client: { clientId: client.clientId, metadata: registered!.metadata },
        subject: user.id,
        user: { sub: user.id, auth_time: Math.floor(grant!.authTime.getTime() / 1000), amr: ['pwd'] },
        grant: { id: grant!.id, scope: ['notes:read'], resource: RESOURCE },
        authorizationRequest: {
          params: expect.objectContaining({
            tenant: 'globex',
            client_id: client.clientId,
            state: request.state,
          }),
          resources: [RESOURCE],
        },
        attachments: { tenant: 'globex' },
      });
    }
    // The attachment is the tenant extension's alone.
    expect(seen.observer.map(({ attachments }) => attachments)).toEqual([{}, {}]);
    expect(grant!.attachments).toEqual({ [TENANT_ID]: { tenant: 'globex' } });
  });

  it('claims nothing when the request chose no tenant, and attaches nothing to the grant', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const code = await redeem(as, client, callback, request);
    expect(code.status).toBe(200);
    expect(await verified(as, code.body['access_token'])).not.toHaveProperty('tenant');
    expect(seen.tenant.map(({ attachments }) => attachments)).toEqual([{}]);
    const [grant] = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    expect(grant!.attachments).toBeNull();
  });

  it('answers a tenant the check refuses with invalid_request at the redirect URI, with no code, writing nothing', async () => {
    const client = await as.createClient();
    const request = authorizationRequest(as, client, { tenant: 'initech' });
    const before = await as.counts();
    const pending = await as.prisma.pendingAuthorization.count();
    const response = await new HeadlessUserAgent().get(request.url);
    expect(response.status).toBe(303);
    const location = new URL(response.location!);
    expect(location.origin + location.pathname).toBe(client.redirectUri);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe('tenant is not one of tenants_supported');
    expect(location.searchParams.get('code')).toBeNull();
    expect(await as.counts()).toEqual(before);
    expect(await as.prisma.pendingAuthorization.count()).toBe(pending);
    expect(seen.tenant).toEqual([]);
  });
});
