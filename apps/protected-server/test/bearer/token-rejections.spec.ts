import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import { SignJWT } from 'jose';
import { bearerChallengeOf, callTool, countNotes } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import {
  createSigningKey,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
} from '@portcullis/testing';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('tokens the protected server must not accept (MCP "Token Handling", RFC 9068 Section 4)', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  const now = () => Math.floor(Date.now() / 1000);
  // Every token below could create a note if it were accepted: it carries notes:write.
  const mint = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
    as.mint({ claims: { aud: app.resource, scope: 'notes:write', ...claims }, header });

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('accepts the control token, so each rejection below is about the one thing it changes', async () => {
    const response = await callTool(app, await mint(), 'notes_create', { title: 'control' });
    expect(response.status).toBe(200);
    await app.database.database.prisma.note.deleteMany();
  });

  const cases: [string, () => Promise<string>][] = [
    ['a token for the origin without the path', () => mint({ aud: new URL(app.resource).origin })],
    ['a token for the resource with a trailing slash', () => mint({ aud: `${app.resource}/` })],
    [
      'a token for the same path on another host',
      () => mint({ aud: app.resource.replace('127.0.0.1', 'localhost') }),
    ],
    ['a token for another service', () => mint({ aud: 'https://api.example.com/mcp' })],
    ['a token without an audience', () => mint({ aud: undefined })],
    ['a token from another issuer signed with the same key', () => mint({ iss: 'http://127.0.0.1:1' })],
    [
      'an unsecured token (alg none)',
      async () =>
        `${b64url({ alg: 'none', typ: 'at+jwt' })}.${b64url({ iss: as.issuer, sub: 'mallory', aud: app.resource, client_id: 'c', scope: 'notes:write', iat: now(), exp: now() + 300, jti: 'n' })}.`,
    ],
    [
      'an HS256 token keyed with the authorization server’s public key',
      () =>
        new SignJWT({
          iss: as.issuer,
          sub: 'mallory',
          aud: app.resource,
          client_id: 'c',
          scope: 'notes:write',
          jti: 'h',
        })
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: as.key.kid })
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(JSON.stringify(as.key.publicJwk))),
    ],
    [
      // Fresh, with the authorization server up: the key set just fetched lacks the key (never a 503).
      'a token signed with kid 123, a key the authorization server never published',
      async () =>
        as.mint({
          key: await createSigningKey('123'),
          claims: { aud: app.resource, scope: 'notes:write' },
        }),
    ],
    [
      'a token carrying the attacker’s own key in a jwk header',
      async () => {
        const attacker = await createSigningKey();
        return as.mint({
          key: attacker,
          claims: { aud: app.resource, scope: 'notes:write' },
          header: { jwk: attacker.publicJwk },
        });
      },
    ],
    ['an expired token', () => mint({ iat: now() - 600, exp: now() - 120 })],
    ['a token not valid before a future nbf', () => mint({ nbf: now() + 300, exp: now() + 900 })],
    ['a token without exp', () => mint({ exp: undefined })],
    ['an ID token (typ JWT)', () => mint({ nonce: 'n-1', auth_time: now() }, { typ: 'JWT' })],
    ['a token without typ', () => mint({}, { typ: undefined })],
    ['a token without sub', () => mint({ sub: undefined })],
    ['10 KiB of garbage', async () => randomBytes(7680).toString('base64url')],
    ['a token with two segments', async () => (await mint()).split('.').slice(0, 2).join('.')],
    ['a token with four segments', async () => `${await mint()}.${b64url({})}`],
    [
      'a token whose signature was altered',
      async () => {
        const [header, claims] = (await mint()).split('.');
        return `${header}.${b64url({ ...JSON.parse(Buffer.from(claims!, 'base64url').toString()), sub: 'mallory' })}.${(await mint()).split('.')[2]}`;
      },
    ],
  ];

  it.each(cases)(
    'rejects %s with 401 invalid_token and a challenge, and persists nothing',
    async (_name, token) => {
      const response = await callTool(app, await token(), 'notes_create', { title: 'must not exist' });
      expect(response.status).toBe(401);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const challenge = bearerChallengeOf(response);
      expect(challenge.params['error']).toBe('invalid_token');
      expect(challenge.params['resource_metadata']).toBe(protectedResourceMetadataUrls(app.resource)[0]);
      expect(challenge.params['scope']).toBe('notes:write');
      expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
      expect(await countNotes(app)).toBe(0);
    },
  );
});
