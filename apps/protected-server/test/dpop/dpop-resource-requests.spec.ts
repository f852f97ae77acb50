import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { parseWwwAuthenticate, protectedResourceMetadataUrls, type Challenge } from '@portcullis/protocol';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { exportJWK } from 'jose';
import {
  createDpopKey,
  dpopProof,
  hmacProof,
  unsecuredProof,
  type DpopKey,
  type ProofOptions,
} from '../support/dpop-proofs.js';
import { countNotes, modernMessage, postMcp, rpcResult } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

/** The challenges of a response by scheme (lower case). */
function challengesOf(response: Response): Record<string, Challenge> {
  const header = response.headers.get('www-authenticate');
  if (header === null) throw new Error(`no WWW-Authenticate on a ${response.status}`);
  return Object.fromEntries(parseWwwAuthenticate(header).map((challenge) => [challenge.scheme, challenge]));
}

const createNote = (title: string) =>
  modernMessage('tools/call', { name: 'notes_create', arguments: { title } });

describe('DPoP-bound access tokens at the protected server (RFC 9449 Section 7)', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let key: DpopKey;
  let token: string;

  /** A token for this resource bound to `bound` (or unbound), with notes:write. */
  const mint = (bound: DpopKey | undefined, scope = 'notes:write') =>
    as.mint({ claims: { aud: app.resource, scope, ...(bound ? { cnf: { jkt: bound.jkt } } : {}) } });
  const proofFor = (overrides: Partial<ProofOptions> = {}, signer = key) =>
    dpopProof(signer, { method: 'POST', url: app.mcpUrl, token, ...overrides });
  const sendDpop = (accessToken: string, proofs: readonly string[], body: unknown = createNote('x')) => {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'notes_create',
      authorization: `DPoP ${accessToken}`,
    });
    for (const proof of proofs) headers.append('dpop', proof);
    return fetch(app.mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
  };

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer, env: { EXTENSIONS: 'dpop' } });
    key = await createDpopKey();
    token = await mint(key);
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });
  beforeEach(async () => {
    await app.database.database.prisma.note.deleteMany();
  });

  it('accepts a bound token with the DPoP scheme and a proof of this request, and acts on it', async () => {
    const response = await sendDpop(token, [await proofFor()]);
    expect(response.status).toBe(200);
    expect(await countNotes(app)).toBe(1);
  });

  it('checks htu against the path it was sent to, ignoring the query, on a plain REST route too', async () => {
    const readToken = await mint(key, 'notes:read');
    const url = `${app.url}/api/notes?view=short`;
    const response = await fetch(url, {
      headers: {
        authorization: `DPoP ${readToken}`,
        dpop: await dpopProof(key, { method: 'GET', url, token: readToken }),
      },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a foreign Origin before the proof is checked, so the proof stays usable (nothing single-use spent)', async () => {
    const proof = await proofFor();
    const foreign = await postMcp(app, createNote('foreign page'), {
      headers: { authorization: `DPoP ${token}`, dpop: proof, origin: 'https://attacker.example' },
    });
    expect(foreign.status).toBe(403);
    expect(await countNotes(app)).toBe(0);
    // The same proof, its jti not recorded by the refusal, is accepted once from the client itself.
    const response = await sendDpop(token, [proof]);
    expect(response.status).toBe(200);
    expect(await countNotes(app)).toBe(1);
  });

  it('accepts the scheme name in any case (RFC 9110 Section 11.1)', async () => {
    const response = await postMcp(app, createNote('case'), {
      headers: { authorization: `dpop ${token}`, dpop: await proofFor() },
    });
    expect(response.status).toBe(200);
  });

  describe('refuses a DPoP request whose proof fails a check with 401 invalid_dpop_proof, and persists nothing', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: [string, () => Promise<readonly string[]>][] = [
      ['no proof at all', async () => []],
      ['two proofs', async () => [await proofFor(), await proofFor()]],
      ['a proof for GET on a POST (htm)', async () => [await proofFor({ method: 'GET' })]],
      ['a proof for another path (htu)', async () => [await proofFor({ url: `${app.url}/api/notes` })]],
      [
        'a proof for the same path on another host (htu)',
        async () => [await proofFor({ url: app.mcpUrl.replace('127.0.0.1', 'localhost') })],
      ],
      [
        'a proof issued ten minutes ago (iat)',
        async () => [await proofFor({ claims: { iat: now() - 600 } })],
      ],
      [
        'a proof issued ten minutes ahead (iat)',
        async () => [await proofFor({ claims: { iat: now() + 600 } })],
      ],
      ['a proof for another access token (ath)', async () => [await proofFor({ token: `${token}x` })]],
      ['a proof without ath', async () => [await proofFor({ claims: { ath: undefined } })]],
      [
        'a proof signed by a key the token is not bound to',
        async () => [await proofFor({}, await createDpopKey())],
      ],
      [
        'an unsecured proof (alg none)',
        async () => [unsecuredProof(key, { method: 'POST', url: app.mcpUrl, token })],
      ],
      [
        'an HS256 proof keyed with the public JWK',
        async () => [
          await hmacProof(key, new TextEncoder().encode(JSON.stringify(key.publicJwk)), {
            method: 'POST',
            url: app.mcpUrl,
            token,
          }),
        ],
      ],
      [
        'a proof whose jwk holds the private key',
        async () => [await proofFor({ header: { jwk: await exportJWK(key.privateKey) } })],
      ],
      ['a proof typed JWT', async () => [await proofFor({ header: { typ: 'JWT' } })]],
      ['a proof that is not a JWT', async () => ['not-a-proof']],
    ];

    it.each(cases)('%s', async (_name, proofs) => {
      const response = await sendDpop(token, await proofs());
      expect(response.status).toBe(401);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const { bearer, dpop } = challengesOf(response);
      expect(dpop?.params['error']).toBe('invalid_dpop_proof');
      expect(bearer?.params['error']).toBeUndefined();
      expect(((await response.json()) as { error: string }).error).toBe('invalid_dpop_proof');
      expect(await countNotes(app)).toBe(0);
    });
  });

  it('refuses two DPoP header fields, each a good proof, as invalid_dpop_proof (RFC 9449 Section 4.3)', async () => {
    const proofs = [await proofFor(), await proofFor()];
    const body = JSON.stringify(createNote('two fields'));
    const { status, challenge } = await new Promise<{ status?: number; challenge?: string }>(
      (resolve, reject) => {
        const outgoing = httpRequest(app.mcpUrl, { method: 'POST' }, (incoming) => {
          incoming.resume();
          resolve({ status: incoming.statusCode, challenge: incoming.headers['www-authenticate'] });
        });
        outgoing.on('error', reject);
        outgoing.setHeader('content-type', 'application/json');
        outgoing.setHeader('accept', 'application/json, text/event-stream');
        outgoing.setHeader('authorization', `DPoP ${token}`);
        // An array is sent as one field line per value.
        outgoing.setHeader('dpop', proofs);
        outgoing.end(body);
      },
    );
    expect(status).toBe(401);
    expect(challenge).toContain('DPoP error="invalid_dpop_proof"');
    expect(await countNotes(app)).toBe(0);
  });

  it('accepts a proof once: the same proof again is a replay (RFC 9449 Section 11.1)', async () => {
    const proof = await proofFor();
    expect((await sendDpop(token, [proof], createNote('first'))).status).toBe(200);
    const replay = await sendDpop(token, [proof], createNote('replayed'));
    expect(replay.status).toBe(401);
    expect(challengesOf(replay)['dpop']?.params['error']).toBe('invalid_dpop_proof');
    expect(await countNotes(app)).toBe(1);
  });

  it('does not consume the jti of a proof it refused, so no refusal can burn a client’s proof', async () => {
    const jti = 'refused-then-used';
    const wrongMethod = await proofFor({ method: 'PUT', claims: { jti } });
    expect((await sendDpop(token, [wrongMethod])).status).toBe(401);
    expect((await sendDpop(token, [await proofFor({ claims: { jti } })])).status).toBe(200);
  });

  it('refuses a bound token presented as Bearer with invalid_token on the Bearer challenge (RFC 9449 Section 7.2)', async () => {
    const response = await postMcp(app, createNote('as bearer'), {
      token,
      headers: { dpop: await proofFor() },
    });
    expect(response.status).toBe(401);
    const { bearer, dpop } = challengesOf(response);
    expect(bearer?.params['error']).toBe('invalid_token');
    expect(dpop?.params['error']).toBeUndefined();
    expect(await countNotes(app)).toBe(0);
  });

  it('refuses an unbound token presented with the DPoP scheme, even with a good proof, as invalid_token', async () => {
    const unbound = await mint(undefined);
    const response = await sendDpop(unbound, [await proofFor({ token: unbound })]);
    expect(response.status).toBe(401);
    expect(challengesOf(response)['dpop']?.params['error']).toBe('invalid_token');
    expect(await countNotes(app)).toBe(0);
  });

  it('refuses a token whose cnf is not an object as invalid_token, whatever the scheme', async () => {
    const odd = await as.mint({ claims: { aud: app.resource, scope: 'notes:write', cnf: key.jkt } });
    const asBearer = await postMcp(app, createNote('odd'), { token: odd });
    expect(asBearer.status).toBe(401);
    const asDpop = await sendDpop(odd, [await proofFor({ token: odd })]);
    expect(asDpop.status).toBe(401);
    expect(challengesOf(asDpop)['dpop']?.params['error']).toBe('invalid_token');
    expect(await countNotes(app)).toBe(0);
  });

  it('still accepts an unbound token as Bearer while DPoP is optional', async () => {
    const response = await postMcp(app, createNote('bearer'), { token: await mint(undefined) });
    expect(response.status).toBe(200);
    expect(await countNotes(app)).toBe(1);
  });

  it('refuses a malformed DPoP credential as invalid_request', async () => {
    const response = await postMcp(app, createNote('x'), {
      headers: { authorization: `DPoP ${token} extra`, dpop: await proofFor() },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
    expect(await countNotes(app)).toBe(0);
  });

  describe('challenges', () => {
    const metadataUrl = () => protectedResourceMetadataUrls(app.resource)[0];

    it('answers a request without credentials with a Bearer and a DPoP challenge, Bearer first, same parameters', async () => {
      const response = await postMcp(app, createNote('x'));
      expect(response.status).toBe(401);
      const header = response.headers.get('www-authenticate')!;
      expect(header.startsWith('Bearer ')).toBe(true);
      const challenges = parseWwwAuthenticate(header);
      expect(challenges.map((challenge) => challenge.scheme)).toEqual(['bearer', 'dpop']);
      const [bearer, dpop] = challenges;
      expect(bearer!.params).toEqual({ resource_metadata: metadataUrl(), scope: 'notes:write' });
      expect(dpop!.params).toEqual({
        algs: expect.stringContaining('ES256') as unknown as string,
        resource_metadata: metadataUrl(),
        scope: 'notes:write',
      });
      expect(dpop!.params['algs']!.split(' ')).not.toContain('HS256');
    });

    it('answers insufficient_scope (403) to a DPoP request on the DPoP challenge, naming the scope to step up to', async () => {
      const readOnly = await mint(key, 'notes:read');
      const response = await sendDpop(readOnly, [await proofFor({ token: readOnly })]);
      expect(response.status).toBe(403);
      const { bearer, dpop } = challengesOf(response);
      expect(dpop?.params).toMatchObject({
        error: 'insufficient_scope',
        scope: 'notes:write',
        resource_metadata: metadataUrl(),
      });
      expect(bearer?.params).toEqual({ scope: 'notes:write', resource_metadata: metadataUrl() });
      expect(await countNotes(app)).toBe(0);
    });

    it('answers insufficient_scope to a Bearer request on the Bearer challenge', async () => {
      const response = await postMcp(app, createNote('x'), { token: await mint(undefined, 'notes:read') });
      expect(response.status).toBe(403);
      const { bearer, dpop } = challengesOf(response);
      expect(bearer?.params['error']).toBe('insufficient_scope');
      expect(dpop?.params['error']).toBeUndefined();
      expect(await countNotes(app)).toBe(0);
    });
  });

  it('declares io.modelcontextprotocol/dpop in its MCP capabilities (MCP SEP-2133)', async () => {
    const response = await postMcp(app, modernMessage('server/discover'), { token: await mint(undefined) });
    const { result } = (await rpcResult(response)) as { result?: { capabilities?: { extensions?: object } } };
    expect(result?.capabilities?.extensions).toEqual({ 'io.modelcontextprotocol/dpop': {} });
  });

  it('publishes the DPoP algorithms and that bound tokens are optional in its metadata (RFC 9728 Section 2)', async () => {
    const document = (await (await fetch(protectedResourceMetadataUrls(app.resource)[0]!)).json()) as Record<
      string,
      unknown
    >;
    expect(document['dpop_bound_access_tokens_required']).toBe(false);
    expect(document['dpop_signing_alg_values_supported']).toEqual(expect.arrayContaining(['ES256', 'EdDSA']));
    expect(document['dpop_signing_alg_values_supported']).not.toContain('HS256');
  });
});
