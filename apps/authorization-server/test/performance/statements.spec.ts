// How many statements the authorization server sends PostgreSQL for one refresh with rotation (RFC 9700 4.14.2),
// for one authorization code redemption (RFC 6749 4.1.3) and for one re-authorization (a browser with a session and
// a consent: the authorization request, RFC 6749 4.1.1, answered with a code, and the code's redemption), counted
// on the wire by a relay between the server and its real PostgreSQL (statement-counter.ts: each simple Query and each
// Execute is one statement, so BEGIN and COMMIT count). Warm: an earlier request has read the client (cached for a
// few seconds per instance) and used the signing key; the counted request follows at once.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  HeadlessUserAgent,
  postgresServerAvailable,
  startDatabase,
  type TestDatabase,
} from '@portcullis/testing';
import { decodeJwt } from 'jose';
import {
  codeFor,
  codeForm,
  dpopKey,
  proof,
  refreshForm,
  tokenEndpoint,
  tokenRequestWithProof,
} from '../dpop/dpop.helpers.js';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { startStatementCounter, type StatementCounter } from './statement-counter.js';

/** At most this many statements per refresh (today: one read of the token, its family and session; one rotation). */
const REFRESH_STATEMENTS = 3;

/**
 * At most this many statements per code redemption (today: one read of the code with its grant; one redemption that
 * consumes the code and stores the tokens).
 */
const CODE_STATEMENTS = 3;

/**
 * At most this many statements per re-authorization: a `/authorize` answered with a code at once, because the browser
 * has a live session and its user's consent covers the request, and the redemption of that code (today: one read of
 * the session with the consent; one statement storing the grant and its code; the redemption's two).
 */
const REAUTHORIZATION_STATEMENTS = 6;

/** How the server stores a refresh token: its SHA-256, base64url. */
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('base64url');

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

/** A server whose statements go through a counting relay; the test's own connection (`as.prisma`) does not. */
function countingServer(env: Record<string, string>) {
  const state = {} as { database: TestDatabase; counter: StatementCounter; as: AuthorizationServerFixture };
  beforeAll(async () => {
    state.database = await startDatabase();
    const server = new URL(state.database.url!);
    state.counter = await startStatementCounter({ host: server.hostname, port: Number(server.port || 5432) });
    const url = state.counter.via(state.database.url!);
    state.as = await startAuthorizationServer({ database: { ...state.database, url, target: { url } }, env });
  });
  afterAll(async () => {
    await state.as?.close();
    await state.counter?.close();
    await state.database?.stop();
  });
  return state;
}

/** The statements `send` made the server send; fails unless it answered 200. */
async function counted(
  counter: StatementCounter,
  send: () => Promise<{ status: number; body: Record<string, unknown> }>,
): Promise<{ statements: readonly string[]; body: Record<string, unknown> }> {
  counter.reset();
  const response = await send();
  const statements = [...counter.texts];
  expect(response.status).toBe(200);
  expect(counter.statements).toBe(statements.length);
  return { statements, body: response.body };
}

/** Fails naming every statement sent, so a regression says which statement came back. */
function expectAtMost(max: number, statements: readonly string[]): void {
  if (statements.length > max) {
    throw new Error(`${statements.length} statements, more than ${max}:\n${statements.join('\n---\n')}`);
  }
}

describeWithPostgres.each([
  ['without a reuse grace window', {}],
  ['with a reuse grace window', { REFRESH_TOKEN_REUSE_GRACE: '30' }],
])('statements sent to PostgreSQL per refresh, %s', (_name, env: Record<string, string>) => {
  const server = countingServer(env);
  let user: { username: string; password: string };
  let client: TestClient;
  beforeAll(async () => {
    user = await server.as.createUser();
    client = await server.as.createClient();
  });

  async function refreshTokenFor(scope: string): Promise<string> {
    const request = authorizationRequest(server.as, client, { scope });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const response = await redeem(server.as, client, callback, request);
    expect(response.status).toBe(200);
    return response.body['refresh_token'] as string;
  }

  const refresh = (token: string) =>
    tokenRequest(server.as, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: client.clientId,
    });

  /** One refresh of `token` to warm up, then the statements of a refresh of its successor. */
  async function countedRefresh(token: string) {
    const warm = await refresh(token);
    expect(warm.status).toBe(200);
    const presented = warm.body['refresh_token'] as string;
    return { presented, ...(await counted(server.counter, () => refresh(presented))) };
  }

  it(`takes at most ${REFRESH_STATEMENTS} for a family that ends with its login session`, async () => {
    const { statements, presented, body } = await countedRefresh(await refreshTokenFor('notes:read'));
    expectAtMost(REFRESH_STATEMENTS, statements);
    // What was counted is a whole rotation: the token used up, the successor and the access token stored.
    const used = await server.as.prisma.refreshToken.findUniqueOrThrow({
      where: { tokenHash: tokenHash(presented) },
    });
    expect(used.consumedAt).not.toBeNull();
    const successor = await server.as.prisma.refreshToken.findUniqueOrThrow({
      where: { tokenHash: tokenHash(body['refresh_token'] as string) },
    });
    expect(successor).toMatchObject({ grantId: used.grantId, scopes: ['notes:read'], consumedAt: null });
    expect(successor.confirmation).toBeNull();
    expect(await server.as.prisma.accessToken.count({ where: { grantId: used.grantId } })).toBe(3);
    expect((await refresh(body['refresh_token'] as string)).status).toBe(200);
  });

  it(`takes at most ${REFRESH_STATEMENTS} for an offline_access family`, async () => {
    const { statements } = await countedRefresh(await refreshTokenFor('notes:read offline_access'));
    expectAtMost(REFRESH_STATEMENTS, statements);
  });
});

describeWithPostgres('statements sent to PostgreSQL per authorization code redemption', () => {
  const server = countingServer({});
  let user: { username: string; password: string };
  let client: TestClient;
  beforeAll(async () => {
    user = await server.as.createUser();
    client = await server.as.createClient();
    // Warm: one whole flow has read the client and used the signing key.
    const request = authorizationRequest(server.as, client);
    const warm = await redeem(
      server.as,
      client,
      await authorize(new HeadlessUserAgent(), request, user, client),
      request,
    );
    expect(warm.status).toBe(200);
  });

  /** The statements of redeeming a fresh code of `overrides`' authorization request, with what it stored. */
  async function countedRedemption(overrides: Record<string, string>) {
    const request = authorizationRequest(server.as, client, overrides);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const result = await counted(server.counter, () => redeem(server.as, client, callback, request));
    const code = await server.as.prisma.authorizationCode.findUniqueOrThrow({
      where: { codeHash: tokenHash(callback.searchParams.get('code')!) },
    });
    return { ...result, code, request, callback };
  }

  it(`takes at most ${CODE_STATEMENTS}, and redeems the code whole`, async () => {
    const { statements, body, code, request, callback } = await countedRedemption({ scope: 'notes:read' });
    expectAtMost(CODE_STATEMENTS, statements);
    // What was counted is a whole redemption: the code used up, the access token and the refresh token stored.
    expect(code.consumedAt).not.toBeNull();
    const { jti } = decodeJwt(body['access_token'] as string);
    expect(await server.as.prisma.accessToken.findUniqueOrThrow({ where: { jti: jti! } })).toMatchObject({
      grantId: code.grantId,
      clientId: client.clientId,
      scopes: ['notes:read'],
      revokedAt: null,
    });
    const refresh = await server.as.prisma.refreshToken.findUniqueOrThrow({
      where: { tokenHash: tokenHash(body['refresh_token'] as string) },
    });
    expect(refresh).toMatchObject({ grantId: code.grantId, scopes: ['notes:read'], consumedAt: null });
    expect(refresh.confirmation).toBeNull();
    expect(body['id_token']).toBeUndefined();
    // Still single use: presented again, it is refused and its grant revoked with what it issued.
    const replayed = await redeem(server.as, client, callback, request);
    expect(replayed.status).toBe(400);
    expect(replayed.body['error']).toBe('invalid_grant');
    const grant = await server.as.prisma.authorizationGrant.findUniqueOrThrow({
      where: { id: code.grantId },
    });
    expect(grant.revokedAt).not.toBeNull();
    expect(
      await server.as.prisma.accessToken.count({ where: { grantId: code.grantId, revokedAt: null } }),
    ).toBe(0);
  });

  it(`takes at most ${CODE_STATEMENTS} with an ID token and its nonce`, async () => {
    const { statements, body } = await countedRedemption({
      scope: 'openid notes:read',
      nonce: 'n-0S6_WzA2Mj',
    });
    expectAtMost(CODE_STATEMENTS, statements);
    expect(decodeJwt(body['id_token'] as string)).toMatchObject({
      aud: client.clientId,
      nonce: 'n-0S6_WzA2Mj',
    });
  });
});

describeWithPostgres(
  'statements sent to PostgreSQL per token request with a DPoP proof (EXTENSIONS=dpop)',
  () => {
    const server = countingServer({ EXTENSIONS: 'dpop' });

    it(`takes at most ${REFRESH_STATEMENTS} per refresh, the proof's jti included, and keeps the key binding`, async () => {
      const { as, counter } = server;
      const user = await as.createUser();
      const client = await as.createClient();
      const key = await dpopKey();
      const issued = await codeFor(as, client, user);
      const redeemed = await tokenRequestWithProof(
        as,
        codeForm(client, issued),
        await proof(key, tokenEndpoint(as)),
      );
      expect(redeemed.status).toBe(200);
      const warm = await tokenRequestWithProof(
        as,
        refreshForm(client, redeemed.body['refresh_token'] as string),
        await proof(key, tokenEndpoint(as)),
      );
      expect(warm.status).toBe(200);

      const form = refreshForm(client, warm.body['refresh_token'] as string);
      const dpop = await proof(key, tokenEndpoint(as));
      const { statements, body } = await counted(counter, () => tokenRequestWithProof(as, form, dpop));
      expectAtMost(REFRESH_STATEMENTS, statements);
      expect(body['token_type']).toBe('DPoP');
      const successor = await as.prisma.refreshToken.findUniqueOrThrow({
        where: { tokenHash: tokenHash(body['refresh_token'] as string) },
      });
      expect(successor.confirmation).toEqual({ jkt: key.jkt });
    });

    it(`takes at most ${CODE_STATEMENTS} per redemption of a code bound with dpop_jkt, the proof's jti included`, async () => {
      const { as, counter } = server;
      const user = await as.createUser();
      const client = await as.createClient();
      const key = await dpopKey();
      // Both codes first (a sign-in each: slow under load), then the warm redemption with a proof, which has read the
      // client (cached for CLIENT_CACHE_MS) and used the signing key just before the one counted.
      const first = await codeFor(as, client, user);
      const issued = await codeFor(as, client, user, { dpop_jkt: key.jkt });
      const form = codeForm(client, issued);
      const dpop = await proof(key, tokenEndpoint(as));
      const warm = await tokenRequestWithProof(
        as,
        codeForm(client, first),
        await proof(key, tokenEndpoint(as)),
      );
      expect(warm.status).toBe(200);

      const { statements, body } = await counted(counter, () => tokenRequestWithProof(as, form, dpop));
      expectAtMost(CODE_STATEMENTS, statements);
      expect(body['token_type']).toBe('DPoP');
      expect(decodeJwt(body['access_token'] as string)['cnf']).toEqual({ jkt: key.jkt });
      // A public client's refresh token is bound to the proof's key (RFC 9449 5).
      const refresh = await as.prisma.refreshToken.findUniqueOrThrow({
        where: { tokenHash: tokenHash(body['refresh_token'] as string) },
      });
      expect(refresh.confirmation).toEqual({ jkt: key.jkt });
      const code = await as.prisma.authorizationCode.findUniqueOrThrow({
        where: { codeHash: tokenHash(issued.code) },
      });
      expect(code.consumedAt).not.toBeNull();
    });
  },
);

describeWithPostgres('statements sent to PostgreSQL per re-authorization (session and consent given)', () => {
  const server = countingServer({});
  let user: { id: string; username: string; password: string };
  let client: TestClient;
  const ua = new HeadlessUserAgent();
  /** Redeems the code of `callback` as the confidential client, with HTTP Basic (RFC 6749 2.3.1), as the bench does. */
  const redeemAsClient = (callback: URL, request: { verifier: string }) =>
    tokenRequest(
      server.as,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? undefined,
        redirect_uri: client.redirectUri,
        code_verifier: request.verifier,
        resource: 'http://localhost:4100/mcp',
      },
      {
        authorization: `Basic ${Buffer.from(
          `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret!)}`,
        ).toString('base64')}`,
      },
    );
  beforeAll(async () => {
    user = await server.as.createUser();
    // A web client on https: a session and an earlier consent let its authorization through without a page (a
    // loopback or native client is asked for a click, RFC 8252 8.6).
    client = await server.as.createClient({
      redirectUris: ['https://client.example/callback'],
      confidential: 'client_secret_basic',
    });
    // The first flow signs in and approves; a second one, answered at once, warms up the path.
    for (let flow = 0; flow < 2; flow++) {
      const request = authorizationRequest(server.as, client);
      const warm = await redeemAsClient(await authorize(ua, request, user, client), request);
      expect(warm.status).toBe(200);
    }
  });

  it(`takes at most ${REAUTHORIZATION_STATEMENTS} for the flow: /authorize answered with a code at once, and its redemption`, async () => {
    const request = authorizationRequest(server.as, client, { scope: 'notes:read' });
    server.counter.reset();
    const response = await ua.get(request.url);
    const authorizeStatements = [...server.counter.texts];
    expect(server.counter.statements).toBe(authorizeStatements.length);
    expect(response.status).toBe(303);
    const callback = new URL(response.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(client.redirectUri);
    expect(callback.searchParams.get('state')).toBe(request.state);
    expect(callback.searchParams.get('iss')).toBe(server.as.issuer);
    // What was counted stored the code with its binding, and its grant with the session it came from.
    const code = await server.as.prisma.authorizationCode.findUniqueOrThrow({
      where: { codeHash: tokenHash(callback.searchParams.get('code')!) },
    });
    expect(code).toMatchObject({
      clientId: client.clientId,
      redirectUri: client.redirectUri,
      redirectUriSent: true,
      codeChallenge: createHash('sha256').update(request.verifier).digest('base64url'),
      consumedAt: null,
    });
    const grant = await server.as.prisma.authorizationGrant.findUniqueOrThrow({
      where: { id: code.grantId },
    });
    const session = await server.as.prisma.loginSession.findFirstOrThrow({ where: { userId: user.id } });
    expect(grant).toMatchObject({
      clientId: client.clientId,
      userId: user.id,
      resource: 'http://localhost:4100/mcp',
      scopes: ['notes:read'],
      sessionId: session.id,
      offlineAccess: false,
      revokedAt: null,
    });
    expect(grant.authTime).toEqual(session.authenticatedAt);

    const { statements: redeemStatements } = await counted(server.counter, () =>
      redeemAsClient(callback, request),
    );
    const flow = [...authorizeStatements, ...redeemStatements];
    process.stdout.write(
      `re-authorization: ${authorizeStatements.length} statements for /authorize, ${redeemStatements.length} for /token\n` +
        `${flow.map((text) => text.replace(/\s+/g, ' ').trim()).join('\n---\n')}\n`,
    );
    expectAtMost(REAUTHORIZATION_STATEMENTS, flow);
    // Still single use.
    expect((await redeemAsClient(callback, request)).status).toBe(400);
  });
});
