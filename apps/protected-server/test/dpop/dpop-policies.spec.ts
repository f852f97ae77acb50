import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseWwwAuthenticate, protectedResourceMetadataUrls, type Challenge } from '@portcullis/protocol';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { createDpopKey, dpopProof, type DpopKey } from '../support/dpop-proofs.js';
import { countNotes, modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

function challengesOf(response: Response): Record<string, Challenge> {
  const header = response.headers.get('www-authenticate') ?? '';
  return Object.fromEntries(parseWwwAuthenticate(header).map((challenge) => [challenge.scheme, challenge]));
}

const createNote = (title: string) =>
  modernMessage('tools/call', { name: 'notes_create', arguments: { title } });

describe('DPoP policies of the protected server', () => {
  let as: TestAuthorizationServer;
  let key: DpopKey;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    key = await createDpopKey();
  });
  afterAll(async () => {
    await as?.close();
  });

  describe('with DPOP_REQUIRED=true (RFC 9728 Section 2, dpop_bound_access_tokens_required)', () => {
    let app: ProtectedServer;
    beforeAll(async () => {
      app = await startProtectedServer({
        authorizationServer: as.issuer,
        env: { EXTENSIONS: 'dpop', DPOP_REQUIRED: 'true' },
      });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('says so in its metadata', async () => {
      const response = await fetch(protectedResourceMetadataUrls(app.resource)[0]!);
      expect(await response.json()).toMatchObject({ dpop_bound_access_tokens_required: true });
    });

    it('refuses an unbound token as Bearer with invalid_token, and persists nothing', async () => {
      const unbound = await as.mint({ claims: { aud: app.resource, scope: 'notes:write' } });
      const response = await postMcp(app, createNote('bearer'), { token: unbound });
      expect(response.status).toBe(401);
      expect(challengesOf(response)['bearer']?.params['error']).toBe('invalid_token');
      expect(await countNotes(app)).toBe(0);
    });

    it('accepts a bound token with its proof', async () => {
      const token = await as.mint({
        claims: { aud: app.resource, scope: 'notes:write', cnf: { jkt: key.jkt } },
      });
      const response = await postMcp(app, createNote('dpop'), {
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await dpopProof(key, { method: 'POST', url: app.mcpUrl, token }),
        },
      });
      expect(response.status).toBe(200);
      expect(await countNotes(app)).toBe(1);
    });
  });

  describe('with DPOP_NONCE=on (RFC 9449 Section 9)', () => {
    let app: ProtectedServer;
    let token: string;
    beforeAll(async () => {
      app = await startProtectedServer({
        authorizationServer: as.issuer,
        env: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on' },
      });
      token = await as.mint({ claims: { aud: app.resource, scope: 'notes:write', cnf: { jkt: key.jkt } } });
    });
    afterAll(async () => {
      await app?.close();
    });

    const send = async (nonce?: string) =>
      postMcp(app, createNote('with nonce'), {
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await dpopProof(key, {
            method: 'POST',
            url: app.mcpUrl,
            token,
            ...(nonce === undefined ? {} : { nonce }),
          }),
        },
      });

    it('answers a proof without its nonce with 401 use_dpop_nonce and a DPoP-Nonce, then accepts the retry', async () => {
      const first = await send();
      expect(first.status).toBe(401);
      const { bearer, dpop } = challengesOf(first);
      expect(dpop?.params['error']).toBe('use_dpop_nonce');
      expect(bearer?.params['error']).toBeUndefined();
      expect(((await first.json()) as { error: string }).error).toBe('use_dpop_nonce');
      const nonce = first.headers.get('dpop-nonce');
      expect(nonce).toEqual(expect.any(String));
      expect(await countNotes(app)).toBe(0);

      const retry = await send(nonce!);
      expect(retry.status).toBe(200);
      expect(await countNotes(app)).toBe(1);
    });

    it('answers a made-up nonce the same way', async () => {
      const response = await send('0.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      expect(response.status).toBe(401);
      expect(challengesOf(response)['dpop']?.params['error']).toBe('use_dpop_nonce');
      expect(response.headers.get('dpop-nonce')).toEqual(expect.any(String));
    });
  });
});
