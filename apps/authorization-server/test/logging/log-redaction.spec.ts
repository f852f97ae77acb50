import { requestLogLines } from '@portcullis/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('the request log', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ captureLogs: true });
  });
  afterAll(async () => {
    await as?.close();
  });

  const secret = () => randomBytes(16).toString('hex');

  const linesOf = (requestId: string) => requestLogLines(() => as.app.logs(), requestId);

  it('censors token-bearing parameters of a token request in any letter case, in the query and the body, and its Authorization and DPoP headers', async () => {
    const client = await as.createClient({ confidential: 'client_secret_basic' });
    const [queryCode, queryToken, bodyToken, verifier, dpop] = [
      secret(),
      secret(),
      secret(),
      secret(),
      secret(),
    ];
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const requestId = randomUUID();
    const before = await as.counts();
    const response = await fetch(`${as.app.url}/token?Code=${queryCode}&ACCESS_TOKEN=${queryToken}&trace=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${basic}`,
        DPoP: dpop,
        'x-request-id': requestId,
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: bodyToken,
        Refresh_Token: bodyToken,
        Code_Verifier: verifier,
        Client_Secret: client.clientSecret!,
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(await as.counts()).toEqual(before);
    expect(await linesOf(requestId)).toContain('/token?Code=[redacted]&ACCESS_TOKEN=[redacted]&trace=1');
    const logs = as.app.logs();
    for (const value of [queryCode, queryToken, bodyToken, verifier, dpop, basic, client.clientSecret!]) {
      expect(logs).not.toContain(value);
    }
  });

  it('censors them in the query of an authorization request', async () => {
    const [code, idToken, assertion] = [secret(), secret(), secret()];
    const requestId = randomUUID();
    const response = await fetch(
      `${as.app.url}/authorize?client_id=unknown&Code=${code}&Id_Token=${idToken}&ASSERTION=${assertion}`,
      { headers: { 'x-request-id': requestId }, redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(await linesOf(requestId)).toContain('Code=[redacted]&Id_Token=[redacted]&ASSERTION=[redacted]');
    for (const value of [code, idToken, assertion]) expect(as.app.logs()).not.toContain(value);
  });
});
