import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { resolveResourceServerConfig, type ResourceServerConfig } from '../config/resource-server.config.js';
import { BearerChallengeError } from '../errors/bearer-challenge.error.js';
import { presentedTokenOf } from '../exchange/presented-token.js';
import { TokenVerifier } from '../tokens/token-verifier.service.js';
import type { AuthInfo } from './auth-info.js';
import { RequestAuthenticator } from './request-authenticator.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const READ = Object.freeze(['notes:read']);
const WRITE = Object.freeze(['notes:write']);

const requestWith = (token: string) => ({
  method: 'GET',
  url: '/mcp',
  headers: { authorization: `Bearer ${token}` },
  raw: { rawHeaders: ['Authorization', `Bearer ${token}`] },
});

/** What `fn` threw synchronously (it must throw). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a synchronous throw');
}

describe('RequestAuthenticator.authenticateNow: a cached verdict answered without a promise', () => {
  let as: TestAuthorizationServer;
  let config: ResourceServerConfig;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    config = resolveResourceServerConfig({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      scopeHierarchy: { 'notes:write': ['notes:read'] },
      tokens: { maxTokenLength: 2048 },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('validates a new token through a promise, then answers the same token at once with the same AuthInfo', async () => {
    const authenticator = new RequestAuthenticator(config, new TokenVerifier(config));
    const token = await as.mint({ claims: { sub: 'alice', scope: 'notes:read' } });
    const first = authenticator.authenticateNow(requestWith(token), () => READ);
    expect(first).toBeInstanceOf(Promise);
    const auth = await first;
    expect(auth).toMatchObject({ subject: 'alice', scopes: ['notes:read'] });

    const again = authenticator.authenticateNow(requestWith(token), () => READ);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toBe(auth);
    // Still the token's view: the RFC 8693 exchange can present it.
    expect(presentedTokenOf(again as AuthInfo)?.token).toBe(token);
  });

  it('refuses insufficient scope at once, whatever an earlier request of the same token was found to cover', async () => {
    const authenticator = new RequestAuthenticator(config, new TokenVerifier(config));
    const token = await as.mint({ claims: { scope: 'notes:read' } });
    await authenticator.authenticateNow(requestWith(token), () => READ);
    for (let round = 0; round < 2; round++) {
      expect(authenticator.authenticateNow(requestWith(token), () => READ)).toMatchObject({
        scopes: ['notes:read'],
      });
      const refused = thrownBy(() => authenticator.authenticateNow(requestWith(token), () => WRITE));
      expect(refused).toBeInstanceOf(BearerChallengeError);
      expect(refused).toMatchObject({ status: 403, requiredScopes: ['notes:write'] });
      expect((refused as BearerChallengeError).error?.code).toBe('insufficient_scope');
      // A required list that is not frozen is decided afresh each time: the same answers.
      expect(() => authenticator.authenticateNow(requestWith(token), () => ['notes:write'])).toThrow(
        BearerChallengeError,
      );
    }
    // The hierarchy still applies: notes:write covers notes:read.
    const writer = await as.mint({ claims: { scope: 'notes:write' } });
    await authenticator.authenticateNow(requestWith(writer), () => WRITE);
    expect(authenticator.authenticateNow(requestWith(writer), () => READ)).toMatchObject({
      scopes: ['notes:write'],
    });
  });

  it('refuses a token over the length bound before anything else looks at it, with no key fetched', async () => {
    const fresh = await startTestAuthorizationServer({ audience: RESOURCE });
    try {
      const bounded = resolveResourceServerConfig({
        resource: RESOURCE,
        authorizationServers: [fresh.issuer],
        tokens: { maxTokenLength: 2048 },
      });
      const authenticator = new RequestAuthenticator(bounded, new TokenVerifier(bounded));
      const long = `${await fresh.mint()}${'A'.repeat(2048)}`;
      const refused = thrownBy(() => authenticator.authenticateNow(requestWith(long)));
      expect(refused).toMatchObject({ status: 401 });
      expect((refused as BearerChallengeError).error).toMatchObject({
        code: 'invalid_token',
        message: 'The access token is too long.',
      });
      expect(fresh.hits('/jwks')).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('waits for scopes a resolver gives later, and refuses through the promise', async () => {
    const authenticator = new RequestAuthenticator(config, new TokenVerifier(config));
    const token = await as.mint({ claims: { scope: 'notes:read' } });
    await authenticator.authenticateNow(requestWith(token), () => READ);
    const later = authenticator.authenticateNow(requestWith(token), async () => WRITE);
    expect(later).toBeInstanceOf(Promise);
    await expect(later).rejects.toMatchObject({ status: 403, requiredScopes: ['notes:write'] });
  });
});
