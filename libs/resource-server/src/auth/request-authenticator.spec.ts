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

    const recorded = presentedTokenOf(auth);
    expect(recorded?.token).toBe(token);

    const again = authenticator.authenticateNow(requestWith(token), () => READ);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toBe(auth);
    // Still the token's view (the RFC 8693 exchange can present it), recorded once, not again on each hit.
    expect(presentedTokenOf(again as AuthInfo)).toBe(recorded);
  });

  it('refuses insufficient scope at once, whatever an earlier request was found to cover', async () => {
    const authenticator = new RequestAuthenticator(config, new TokenVerifier(config));
    // A broader token covers the route's scopes first (notes:write, and notes:read through the hierarchy)...
    const writer = await as.mint({ claims: { scope: 'notes:write' } });
    await authenticator.authenticateNow(requestWith(writer), () => WRITE);
    expect(authenticator.authenticateNow(requestWith(writer), () => WRITE)).toMatchObject({
      scopes: ['notes:write'],
    });
    expect(authenticator.authenticateNow(requestWith(writer), () => READ)).toMatchObject({
      scopes: ['notes:write'],
    });
    // ...which says nothing of a narrower token on the same route.
    const reader = await as.mint({ claims: { scope: 'notes:read' } });
    await authenticator.authenticateNow(requestWith(reader), () => READ);
    for (let round = 0; round < 2; round++) {
      expect(authenticator.authenticateNow(requestWith(reader), () => READ)).toMatchObject({
        scopes: ['notes:read'],
      });
      const refused = thrownBy(() => authenticator.authenticateNow(requestWith(reader), () => WRITE));
      expect(refused).toBeInstanceOf(BearerChallengeError);
      expect(refused).toMatchObject({ status: 403, requiredScopes: ['notes:write'] });
      expect((refused as BearerChallengeError).error?.code).toBe('insufficient_scope');
    }
    // A required list that is not frozen can change between requests: decided afresh each time.
    const changing = ['notes:read'];
    expect(authenticator.authenticateNow(requestWith(reader), () => changing)).toMatchObject({
      scopes: ['notes:read'],
    });
    changing[0] = 'notes:write';
    expect(() => authenticator.authenticateNow(requestWith(reader), () => changing)).toThrow(
      BearerChallengeError,
    );
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
      // Nothing was started for it: no key set fetched once the event loop has turned.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fresh.hits('/jwks')).toBe(0);
      expect(fresh.hits('/.well-known/oauth-authorization-server')).toBe(0);
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
