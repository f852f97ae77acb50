import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HousekeepingRepository, HousekeepingService } from '@portcullis/authorization';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

const DAY_MS = 86_400_000;
const REGISTRATION = { unusedClientTtl: 86_400, idleClientTtl: 90 * 86_400 };

// Clients that register on every start and never keep their credentials leave dozens of identical registrations
// behind; the sweep deletes a dynamically registered client that never completed an authorization within
// DCR_UNUSED_CLIENT_TTL, or that has had no live grant for DCR_IDLE_CLIENT_TTL since its last one.
describe('the housekeeping sweep of dynamically registered clients', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  let sweep: HousekeepingService;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    user = await as.createUser();
    sweep = new HousekeepingService(new HousekeepingRepository(as.prisma), {
      registration: { enabled: true, ...REGISTRATION },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  async function register(): Promise<TestClient> {
    const response = await fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Forgetful',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(response.status).toBe(201);
    const { client_id: clientId } = (await response.json()) as { client_id: string };
    return { clientId, redirectUri: 'http://127.0.0.1/callback' };
  }

  async function authorizeOnce(client: TestClient): Promise<void> {
    const request = authorizationRequest(as, client, { scope: 'notes:read offline_access' });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
  }

  const exists = async (client: TestClient) =>
    (await as.prisma.client.count({ where: { id: client.clientId } })) === 1;
  const age = (client: TestClient, field: 'createdAt' | 'lastUsedAt', days: number) =>
    as.prisma.client.update({
      where: { id: client.clientId },
      data: { [field]: new Date(Date.now() - days * DAY_MS) },
    });

  it('records when an authorization of the client completes', async () => {
    const client = await register();
    expect(
      (await as.prisma.client.findUniqueOrThrow({ where: { id: client.clientId } })).lastUsedAt,
    ).toBeNull();
    await authorizeOnce(client);
    const used = await as.prisma.client.findUniqueOrThrow({ where: { id: client.clientId } });
    expect(Date.now() - used.lastUsedAt!.getTime()).toBeLessThan(60_000);
  });

  it('deletes a registration never used for a day, and keeps a younger one and pre-registered clients', async () => {
    const stale = await register();
    const fresh = await register();
    const preregistered = await as.createClient();
    await age(stale, 'createdAt', 2);
    await as.prisma.client.update({
      where: { id: preregistered.clientId },
      data: { createdAt: new Date(Date.now() - 400 * DAY_MS) },
    });

    const result = await sweep.sweep();
    expect(result.clients).toBeGreaterThanOrEqual(1);
    expect(await exists(stale)).toBe(false);
    expect(await exists(fresh)).toBe(true);
    expect(await exists(preregistered)).toBe(true);
  });

  it('keeps a client idle for 90 days while it has a live grant, and deletes it with its dead grants once it has none', async () => {
    const client = await register();
    await authorizeOnce(client);
    await age(client, 'lastUsedAt', 91);
    await sweep.sweep();
    expect(await exists(client)).toBe(true);

    await as.prisma.authorizationGrant.updateMany({
      where: { clientId: client.clientId },
      data: { revokedAt: new Date() },
    });
    await sweep.sweep();
    expect(await exists(client)).toBe(false);
    const left = await Promise.all([
      as.prisma.authorizationGrant.count({ where: { clientId: client.clientId } }),
      as.prisma.authorizationCode.count({ where: { clientId: client.clientId } }),
      as.prisma.accessToken.count({ where: { clientId: client.clientId } }),
      as.prisma.consent.count({ where: { clientId: client.clientId } }),
    ]);
    expect(left).toEqual([0, 0, 0, 0]);
  });

  it('keeps a client whose last use is recent even without a live grant', async () => {
    const client = await register();
    await authorizeOnce(client);
    await as.prisma.authorizationGrant.updateMany({
      where: { clientId: client.clientId },
      data: { revokedAt: new Date() },
    });
    await age(client, 'createdAt', 200);
    await sweep.sweep();
    expect(await exists(client)).toBe(true);
  });

  it('sweeps no client without the registration settings (a sweep built without them)', async () => {
    const client = await register();
    await age(client, 'createdAt', 30);
    expect((await new HousekeepingService(new HousekeepingRepository(as.prisma)).sweep()).clients).toBe(0);
    expect(await exists(client)).toBe(true);
  });
});
