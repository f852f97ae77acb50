// A token request happens whole or not at all (RFC 6749 4.1.2 and 10.5: a code is used once; RFC 9700 4.14.2:
// a rotated refresh token is used once): the code or refresh token is consumed in the same transaction that stores
// what is issued for it. A failure after the consumption and before the commit (here an extension's claims hook
// that fails once, as a database that goes away would) leaves the code or token usable, stores nothing, and the
// client's retry is neither a replay nor a reuse.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry, type JsonObject } from '@portcullis/extensions';
import type { PortcullisAppModule } from '@portcullis/platform';
import { HeadlessUserAgent } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

/** Fails the next token issuance of `clientId`, once, after the grant has consumed what it redeems. */
const failures = new Set<string>();
const failOnce = defineExtension({
  id: 'com.example/fail-once',
  version: '1.0.0',
  authorizationServer: {
    tokenClaims: ({ clientId }): JsonObject => {
      if (failures.delete(clientId)) throw new Error('the claims source is unavailable');
      return {};
    },
  },
});

const appModule: PortcullisAppModule = {
  configure: (env, overrides) =>
    AppModule.configure(env, overrides, { extensions: ExtensionRegistry.compose([failOnce]) }),
};

describe('a token request that fails after consuming what it redeems', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer({ appModule });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  async function codeFor(client: TestClient) {
    const request = authorizationRequest(as, client, { scope: 'notes:read' });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    return { request, callback };
  }

  const refresh = (client: TestClient, token: string) =>
    tokenRequest(as, { grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId });

  it('leaves the code redeemable and stores nothing; the retry redeems it and revokes nothing', async () => {
    const client = await as.createClient();
    const { request, callback } = await codeFor(client);
    const before = await as.counts();

    failures.add(client.clientId);
    const failed = await redeem(as, client, callback, request);
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      error: 'server_error',
      error_description: 'the server could not process the request',
    });
    expect(await as.counts()).toEqual(before);
    const code = await as.prisma.authorizationCode.findFirstOrThrow({ where: { clientId: client.clientId } });
    expect(code.consumedAt).toBeNull();

    const retried = await redeem(as, client, callback, request);
    expect(retried.status).toBe(200);
    expect(typeof retried.body['access_token']).toBe('string');
    const grant = await as.prisma.authorizationGrant.findUniqueOrThrow({ where: { id: code.grantId } });
    expect(grant.revokedAt).toBeNull();
    expect(await as.prisma.accessToken.count({ where: { clientId: client.clientId } })).toBe(1);
    expect(await as.prisma.refreshToken.count({ where: { grantId: code.grantId } })).toBe(1);
  });

  it('leaves the refresh token usable and stores no successor; the retry is no reuse', async () => {
    const client = await as.createClient();
    const { request, callback } = await codeFor(client);
    const first = await redeem(as, client, callback, request);
    expect(first.status).toBe(200);
    const token = first.body['refresh_token'] as string;
    const before = await as.counts();

    failures.add(client.clientId);
    const failed = await refresh(client, token);
    expect(failed.status).toBe(500);
    expect(failed.body['error']).toBe('server_error');
    expect(await as.counts()).toEqual(before);
    const { grantId } = await as.prisma.authorizationCode.findFirstOrThrow({
      where: { clientId: client.clientId },
    });
    const rows = await as.prisma.refreshToken.findMany({ where: { grantId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.consumedAt).toBeNull();

    const retried = await refresh(client, token);
    expect(retried.status).toBe(200);
    // The family lives on: its new refresh token works in turn.
    const next = await refresh(client, retried.body['refresh_token'] as string);
    expect(next.status).toBe(200);
    const grant = await as.prisma.authorizationGrant.findUniqueOrThrow({ where: { id: grantId } });
    expect(grant.revokedAt).toBeNull();
  });
});
