import { afterEach, describe, expect, it } from '@jest/globals';
import { REVISIONS } from '@portcullis/revisions';
import { isPortcullisError } from '../../src/errors/portcullis-error.js';
import { HeadlessUserAgent } from '../../src/user-agent/headless-user-agent.js';
import type { UserAgent } from '../../src/user-agent/user-agent.js';
import {
  FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
} from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

/** A user-agent whose callback an attacker rewrote on the way back. */
function tamperingUserAgent(rewrite: (callback: URL) => void): UserAgent {
  const inner = new HeadlessUserAgent();
  return {
    redirectUris: inner.redirectUris,
    begin: async () => {
      const session = await inner.begin();
      return {
        ...session,
        authorize: async (url) => {
          const callback = new URL(await session.authorize(url));
          rewrite(callback);
          return callback.href;
        },
      };
    },
  };
}

// MCP 2026-07-28 "Authorization Response Validation", RFC 9207.
describe('checking the authorization response before the code is redeemed', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(options: FakeAuthorizationServerOptions = {}) {
    const as = await FakeAuthorizationServer.start(options);
    const rs = await FakeResourceServer.start({ authorizationServers: () => [as] });
    servers.push(as, rs);
    return { as, rs };
  }

  it('redeems the code when iss is advertised and equals the recorded issuer', async () => {
    const { as, rs } = await stack({ issInRedirect: 'correct' });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.grants('authorization_code')).toHaveLength(1);
  });

  it.each([
    ['another issuer', 'wrong' as const, 'iss_mismatch'],
    ['the issuer with a trailing slash', 'trailing-slash' as const, 'iss_mismatch'],
    ['no iss although the server advertises it', 'missing' as const, 'iss_missing'],
  ])('discards a response carrying %s and never redeems its code', async (_, issInRedirect, code) => {
    const { as, rs } = await stack({ issInRedirect });
    const { fetch, store } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code,
      details: { issuer: as.issuer },
    });
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.tokenRequests).toEqual([]);
    expect(await store.listTokens()).toEqual([]);
  });

  it('compares an iss the server does not advertise, and discards a mismatch', async () => {
    const { as, rs } = await stack({
      issInRedirect: 'wrong',
      metadata: (document) => ({ ...document, authorization_response_iss_parameter_supported: undefined }),
    });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'iss_mismatch' });
    expect(as.tokenRequests).toEqual([]);
  });

  it('proceeds without iss when the server neither advertises nor sends it', async () => {
    const { as, rs } = await stack({
      issInRedirect: 'missing',
      metadata: (document) => ({ ...document, authorization_response_iss_parameter_supported: false }),
    });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.grants('authorization_code')).toHaveLength(1);
  });

  // RFC 9207 2.4 binds a client whenever the server advertises iss or sends it, whatever MCP revision is spoken.
  describe.each(REVISIONS)('under %s (RFC 9207 Section 2.4 in every revision)', (revision) => {
    it.each([
      [
        'another issuer although the server advertises iss',
        { issInRedirect: 'wrong' as const },
        'iss_mismatch',
      ],
      ['no iss although the server advertises it', { issInRedirect: 'missing' as const }, 'iss_missing'],
      [
        'another issuer although the server does not advertise iss',
        {
          issInRedirect: 'wrong' as const,
          metadata: (document: Record<string, unknown>) => ({
            ...document,
            authorization_response_iss_parameter_supported: undefined,
          }),
        },
        'iss_mismatch',
      ],
    ])('discards a response carrying %s, never redeeming its code', async (_, options, code) => {
      const { as, rs } = await stack(options);
      const { fetch, store } = clientFor(rs, { revision });

      await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
        code,
        details: { issuer: as.issuer },
      });
      expect(as.authorizationRequests).toHaveLength(1);
      expect(as.tokenRequests).toEqual([]);
      expect(await store.listTokens()).toEqual([]);
    });

    it('redeems the code of a response whose iss is the recorded issuer', async () => {
      const { as, rs } = await stack({ issInRedirect: 'correct' });
      const { fetch } = clientFor(rs, { revision });

      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
      expect(as.grants('authorization_code')).toHaveLength(1);
    });

    it('proceeds without iss when the server neither advertises nor sends it', async () => {
      const { as, rs } = await stack({
        issInRedirect: 'missing',
        metadata: (document) => ({ ...document, authorization_response_iss_parameter_supported: false }),
      });
      const { fetch } = clientFor(rs, { revision });

      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
      expect(as.grants('authorization_code')).toHaveLength(1);
    });
  });

  it('neither shows nor acts on an error response whose iss failed', async () => {
    const { as, rs } = await stack({ issInRedirect: 'wrong', authorizationError: 'access_denied' });
    const { fetch } = clientFor(rs);

    const error = await fetch(rs.url, rpc('tools/list')).catch((caught: unknown) => caught);

    expect(isPortcullisError(error, 'iss_mismatch')).toBe(true);
    const failure = error as Error & { authorizationServerError?: unknown; details: object };
    expect(failure.authorizationServerError).toBeUndefined();
    expect(`${failure.message} ${JSON.stringify(failure.details)}`).not.toMatch(
      /access_denied|described by the server/,
    );
    expect(as.tokenRequests).toEqual([]);
  });

  it('reports an error response whose state and iss passed as authorization_denied with the server error', async () => {
    const { as, rs } = await stack({ authorizationError: 'access_denied' });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code: 'authorization_denied',
      authorizationServerError: { error: 'access_denied', errorDescription: 'described by the server' },
    });
    expect(as.tokenRequests).toEqual([]);
  });

  it.each([
    [
      'a state this client did not send',
      (callback: URL) => callback.searchParams.set('state', 'forged-state-value-123'),
    ],
    ['no state', (callback: URL) => callback.searchParams.delete('state')],
  ])('discards a response with %s (state_mismatch) before checking anything else', async (_, rewrite) => {
    const { as, rs } = await stack({ issInRedirect: 'wrong', authorizationError: 'access_denied' });
    const { fetch } = clientFor(rs, { userAgent: tamperingUserAgent(rewrite) });

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'state_mismatch' });
    expect(as.tokenRequests).toEqual([]);
  });

  it('discards a response that repeats the code parameter', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs, {
      userAgent: tamperingUserAgent((callback) => callback.searchParams.append('code', 'injected-code')),
    });

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'invalid_callback' });
    expect(as.tokenRequests).toEqual([]);
  });
});
