import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, requestLogLines } from '@portcullis/testing';
import { startProxy, type ProxyFixture } from '../support/proxy.fixture.js';

describe('the request log', () => {
  let proxy: ProxyFixture;
  beforeAll(async () => {
    proxy = await startProxy({
      port: await freePort(),
      upstream: { issuer: 'http://127.0.0.1:9', clientId: 'unused', clientSecret: 'unused' },
      resource: 'http://127.0.0.1:9/mcp',
      captureLogs: true,
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const secret = () => randomBytes(16).toString('hex');

  const linesOf = (requestId: string) => requestLogLines(() => proxy.app.logs(), requestId);

  it('censors token-bearing parameters of a token request in any letter case, in the query and the body, and its Authorization and DPoP headers', async () => {
    const [queryToken, queryCode, bodyToken, clientSecret, dpop, bearer] = [
      secret(),
      secret(),
      secret(),
      secret(),
      secret(),
      secret(),
    ];
    const requestId = randomUUID();
    const before = await proxy.counts();
    const response = await fetch(
      `${proxy.issuer}/token?Refresh_Token=${queryToken}&cOdE=${queryCode}&trace=1`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          AUTHORIZATION: `Bearer ${bearer}`,
          dpop,
          'x-request-id': requestId,
        },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: bodyToken,
          Subject_Token: bodyToken,
          Client_Secret: clientSecret,
        }).toString(),
      },
    );
    expect(response.status).toBe(401);
    expect(await proxy.counts()).toEqual(before);
    expect(await linesOf(requestId)).toContain('/token?Refresh_Token=[redacted]&cOdE=[redacted]&trace=1');
    const logs = proxy.app.logs();
    for (const value of [queryToken, queryCode, bodyToken, clientSecret, dpop, bearer]) {
      expect(logs).not.toContain(value);
    }
  });

  it('censors them in the query of the upstream callback, which stores nothing', async () => {
    const [code, accessToken] = [secret(), secret()];
    const requestId = randomUUID();
    const before = await proxy.counts();
    const response = await fetch(
      `${proxy.issuer}/upstream/callback?CODE=${code}&state=s&Access_Token=${accessToken}`,
      { headers: { 'x-request-id': requestId }, redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(await proxy.counts()).toEqual(before);
    expect(await linesOf(requestId)).toContain('CODE=[redacted]&state=s&Access_Token=[redacted]');
    for (const value of [code, accessToken]) expect(proxy.app.logs()).not.toContain(value);
  });
});
