import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import { dpopKey, proof, tokenEndpoint, tokenRequestWithProof } from './dpop.helpers.js';

// A file of its own: the log capture of the test harness keeps the lines of the first app a test process starts.

describe('DPOP_NONCE=on without DPOP_NONCE_SECRET', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on' }, captureLogs: true });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('says at boot that its nonces are good at this instance only, and still asks for them', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const response = await tokenRequestWithProof(
      as,
      { grant_type: 'refresh_token', refresh_token: 'unknown', client_id: client.clientId },
      await proof(key, tokenEndpoint(as)),
    );
    expect(response.status).toBe(400);
    expect(response.body['error']).toBe('use_dpop_nonce');
    expect(response.headers['dpop-nonce']).toEqual(expect.any(String));
    // Log lines reach the capture asynchronously; the request above has certainly flushed the boot's.
    for (let attempt = 0; attempt < 50 && !as.app.logs().includes('DPOP_NONCE_SECRET'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(as.app.logs()).toMatch(
      /DPOP_NONCE_SECRET is not set.*this instance accepts only its own DPoP nonces/,
    );
  });
});
