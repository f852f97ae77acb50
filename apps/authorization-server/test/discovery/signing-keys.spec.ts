import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
} from '../support/authorization-server.fixture.js';

describe('signing keys', () => {
  let database: TestDatabase;
  const keyEncryptionKey = randomBytes(32).toString('base64');
  beforeAll(async () => {
    database = await startDatabase();
  });
  afterAll(async () => {
    await database?.stop();
  });

  it('are made at first boot, stored encrypted, and still verify tokens after a restart', async () => {
    const env = { KEY_ENCRYPTION_KEY: keyEncryptionKey };
    const first = await startAuthorizationServer({ database, env });
    const client = await first.createClient();
    const user = await first.createUser();
    const request = authorizationRequest(first, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const token = (await redeem(first, client, callback, request)).body.access_token as string;
    const [stored] = await first.prisma.signingKey.findMany();
    expect(stored!.encrypted).toBe(true);
    expect(stored!.privateJwk).toMatch(/^v1\./);
    expect(stored!.privateJwk).not.toContain('"d"');
    await first.close();

    const second = await startAuthorizationServer({ database, env });
    try {
      expect(await second.prisma.signingKey.count()).toBe(1);
      const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${second.app.url}/jwks`)), {
        issuer: first.issuer,
        audience: RESOURCE,
      });
      expect(payload.sub).toBe(user.id);
    } finally {
      await second.close();
    }
  });

  it('refuse to boot with another KEY_ENCRYPTION_KEY than the one they were sealed with', async () => {
    await expect(
      startAuthorizationServer({ database, env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } }),
    ).rejects.toThrow('cannot be decrypted with this KEY_ENCRYPTION_KEY');
    await expect(startAuthorizationServer({ database })).rejects.toThrow('KEY_ENCRYPTION_KEY is not set');
  });
});
