import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ClientRepository,
  generateClientSecret,
  hashClientSecret,
  parseKeyEncryptionKey,
} from '@portcullis/authorization';
import { freePort, startGithubFake, type GithubFake, type GithubFakeApp } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { signInWithMcpClient } from '../support/provider-flow.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import { UpstreamTokens } from '../../src/upstream/upstream-token.repository.js';
import { proxyCallback, repositoryOptions, startProxy, type ProxyFixture } from '../support/proxy.fixture.js';
import {
  ACCESS_TOKEN_TYPE,
  exchangeToken,
  registerResourceServer,
  TOKEN_EXCHANGE,
  type ResourceServerClient,
} from '../support/token-exchange.js';

const OCTOCAT = {
  id: 583231,
  login: 'octocat',
  name: 'The Octocat',
  emails: [{ email: 'octocat@github.example', primary: true, verified: true }],
};

describe('RFC 8693 token exchange at the proxy: a resource server gets the user’s upstream token', () => {
  let github: GithubFake;
  let app: GithubFakeApp;
  let proxy: ProxyFixture;
  let second: ProxyFixture;
  let server: ProtectedServer;
  let exchanger: ResourceServerClient;
  /** The access token the MCP client presented to the protected server, issued by the proxy for it. */
  let userToken: string;
  let userId: string;

  beforeAll(async () => {
    const [port, secondPort] = [await freePort(), await freePort()];
    github = await startGithubFake({ users: [OCTOCAT] });
    app = github.registerApp({ callbackUrl: proxyCallback(port), kind: 'github-app' });
    const { recorder, resource } = await reserveResource();
    // Both instances share the secrets that seal what they store (the vault's tokens, the signing keys).
    const env = {
      UPSTREAM_PROVIDER: 'github',
      UPSTREAM_BASE_URL: github.baseUrl,
      UPSTREAM_SCOPES: '',
      COOKIE_SECRET: 'c'.repeat(43),
      KEY_ENCRYPTION_KEY: 'k'.repeat(43),
    };
    const upstream = { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret };
    proxy = await startProxy({ port, upstream, resource, env });
    // A second instance of the same proxy (same issuer, same database) behind the same name.
    second = await startProxy({
      port: secondPort,
      upstream,
      resource,
      database: proxy.app.database,
      // This one also issues client credentials tokens (tokens that name a client, not a user).
      env: { ...env, ISSUER: proxy.issuer, EXTENSIONS: 'client-credentials' },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
    exchanger = await registerResourceServer(proxy, server.resource, [TOKEN_EXCHANGE]);
    const seen = server.recorder.exchanges.length;
    ({ subject: userId } = await signInWithMcpClient(server, proxy, 'octocat'));
    userToken = server.recorder.exchanges
      .slice(seen)
      .map((each) => /^Bearer (.+)$/.exec(String(each.headers.authorization ?? ''))?.[1])
      .filter((each): each is string => each !== undefined)
      .at(-1)!;
  });
  afterAll(async () => {
    await server?.close();
    await second?.close();
    await proxy?.close();
    await github?.close();
  });

  /** The user's GitHub tokens as the vault holds them: the row, and what the proxy stores for it. */
  const vaultRow = () =>
    proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId, connection: 'upstream' } },
    });

  const exchange = (
    client: ResourceServerClient,
    params: Record<string, string> = {},
    at: ProxyFixture = proxy,
  ) =>
    exchangeToken(`${at.app.url}/token`, client, {
      subject_token: userToken,
      requested_token_type: ACCESS_TOKEN_TYPE,
      ...params,
    });

  const githubUser = (token: string) =>
    fetch(`${github.apiUrl}/user`, { headers: { authorization: `Bearer ${token}`, 'user-agent': 'test' } });

  it('answers the user’s current GitHub token, with which GitHub’s API answers as that user', async () => {
    const refreshes = github.refreshes.length;
    const { status, body } = await exchange(exchanger);
    expect(status).toBe(200);
    expect(body).toMatchObject({ issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer' });
    expect(body).not.toHaveProperty('refresh_token');
    expect(body['expires_in']).toBeGreaterThan(7 * 3600);
    const token = String(body['access_token']);
    // Not the token the MCP client presented (MCP "Token Passthrough"), but one GitHub issued to the proxy.
    expect(token).not.toBe(userToken);
    expect(github.issued().has(token)).toBe(true);
    const user = await githubUser(token);
    expect(user.status).toBe(200);
    expect(await user.json()).toMatchObject({ id: OCTOCAT.id, login: 'octocat' });
    // Fresh: nothing was refreshed.
    expect(github.refreshes.length).toBe(refreshes);
    expect((await vaultRow()).lastUsedAt).not.toBeNull();
  });

  it('lists token exchange in the metadata', async () => {
    const metadata = (await (
      await fetch(`${proxy.app.url}/.well-known/oauth-authorization-server`)
    ).json()) as {
      grant_types_supported: string[];
    };
    expect(metadata.grant_types_supported).toContain(TOKEN_EXCHANGE);
  });

  it('refreshes an expiring GitHub token once, for concurrent exchanges at two instances, rotating the refresh token', async () => {
    const before = await vaultRow();
    await proxy.prisma.upstreamToken.update({
      where: { userId_connection: { userId, connection: 'upstream' } },
      data: { expiresAt: new Date(Date.now() + 10_000) },
    });
    const refreshes = github.refreshes.length;
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => exchange(exchanger)),
      ...Array.from({ length: 4 }, () => exchange(exchanger, {}, second)),
    ]);
    expect(answers.map((each) => each.status)).toEqual(Array(8).fill(200));
    expect(github.refreshes.length).toBe(refreshes + 1);
    const tokens = new Set(answers.map((each) => each.body['access_token']));
    expect(tokens.size).toBe(1);
    const [token] = [...tokens] as string[];
    expect((await githubUser(token!)).status).toBe(200);
    const after = await vaultRow();
    expect(after.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 7 * 3600_000);
    // The refresh token rotated: the sealed one changed, and the spent one is GitHub's record of the refresh.
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.refreshToken).toMatch(/^v1\./);
  });

  it.each([
    [
      'a subject token that is not one of the proxy’s',
      { subject_token: 'not-a-token' },
      400,
      'invalid_grant',
    ],
    [
      'a subject token of another type',
      { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
      400,
      'invalid_request',
    ],
    [
      'a refresh token asked for',
      { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
      400,
      'invalid_request',
    ],
    ['an unknown connection', { audience: 'gitlab' }, 400, 'invalid_target'],
    ['a resource instead of a connection', { resource: 'https://api.github.com/' }, 400, 'invalid_target'],
    ['a scope the connection was not granted', { scope: 'repo' }, 400, 'invalid_scope'],
    ['no audience', { audience: '' }, 400, 'invalid_request'],
  ])('refuses %s, issuing nothing', async (_case, params, status, error) => {
    const refreshes = github.refreshes.length;
    const events = await refusals();
    const answer = await exchange(exchanger, params);
    expect(answer.status).toBe(status);
    expect(answer.body['error']).toBe(error);
    expect(answer.body).not.toHaveProperty('access_token');
    expect(github.refreshes.length).toBe(refreshes);
    expect(await refusals()).toBe(events + 1);
  });

  it('refuses the user’s token to a resource server it was not issued for', async () => {
    const other = await registerResourceServer(proxy, 'http://localhost:9/other/mcp', [TOKEN_EXCHANGE]);
    const events = await refusals();
    const answer = await exchange(other);
    expect(answer).toEqual({
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'subject_token was not issued for this resource server',
      },
    });
    expect(await refusals()).toBe(events + 1);
  });

  it('refuses a token that names a client, not a user (client credentials), issuing nothing', async () => {
    const secret = generateClientSecret();
    const machine = await new ClientRepository(proxy.prisma).create({
      clientId: `cc-${Date.now()}`,
      clientName: 'A machine',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(secret),
      scope: 'notes:read',
    });
    const issued = await fetch(`${second.app.url}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${machine.clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource: server.resource,
        scope: 'notes:read',
      }),
    });
    expect(issued.status).toBe(200);
    const machineToken = String(((await issued.json()) as Record<string, unknown>)['access_token']);
    const events = await refusals();
    const answer = await exchange(exchanger, { subject_token: machineToken });
    expect(answer).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token does not represent a user' },
    });
    expect(await refusals()).toBe(events + 1);
  });

  it('refuses a revoked subject token', async () => {
    const { jti } = decodeJwt(userToken);
    const revoked = await proxy.prisma.accessToken.update({
      where: { jti: String(jti) },
      data: { revokedAt: new Date() },
    });
    try {
      const answer = await exchange(exchanger);
      expect(answer.status).toBe(400);
      expect(answer.body['error']).toBe('invalid_grant');
      expect(answer.body).not.toHaveProperty('access_token');
    } finally {
      await proxy.prisma.accessToken.update({ where: { jti: revoked.jti }, data: { revokedAt: null } });
    }
  });

  it('refuses a resource server not registered for exchange, and a client that is no resource server', async () => {
    const introspectOnly = await registerResourceServer(proxy, server.resource, []);
    expect(await exchange(introspectOnly)).toMatchObject({
      status: 400,
      body: { error: 'unauthorized_client' },
    });
    const secret = generateClientSecret();
    const machine = await new ClientRepository(proxy.prisma).create({
      clientId: `machine-${Date.now()}`,
      clientName: 'Not a resource server',
      redirectUris: [],
      grantTypes: [TOKEN_EXCHANGE],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(secret),
    });
    const answer = await exchange({ clientId: machine.clientId, secret });
    expect(answer).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    expect(answer.body).not.toHaveProperty('access_token');
  });

  it('neither uses nor refreshes, nor sends anywhere, the tokens of a connection since pointed at another provider', async () => {
    const before = await vaultRow();
    // Stored by this proxy: the provider its sign-in connection names (the GitHub preset's issuer).
    expect(before.provider).not.toBeNull();
    expect(before.accessToken).not.toBeNull();
    // The same row as a proxy whose sign-in connection now names another provider (http://127.0.0.1:9) reads it:
    // not usable, and the account page offers to connect again.
    const repointed = new UpstreamTokens(
      proxy.prisma,
      repositoryOptions(parseKeyEncryptionKey('k'.repeat(43))),
    );
    expect(await repointed.find(userId, 'upstream')).toMatchObject({ live: false, providerChanged: true });
    expect(await repointed.connections(userId)).toEqual([
      expect.objectContaining({ connection: 'upstream', hasTokens: false, providerChanged: true }),
    ]);
    // The running proxy, its row stored for another provider and about to expire (so it would be refreshed):
    // refused as a connection to make again, and GitHub asked nothing.
    await proxy.prisma.upstreamToken.update({
      where: { userId_connection: { userId, connection: 'upstream' } },
      data: { provider: 'https://github.example.old', expiresAt: new Date(Date.now() + 10_000) },
    });
    const [refreshes, requests] = [github.refreshes.length, github.requests.length];
    try {
      const answer = await exchange(exchanger);
      expect(answer.status).toBe(400);
      expect(answer.body['error']).toBe('invalid_grant');
      expect(String(answer.body['error_description'])).toContain('connect upstream again');
      expect(github.refreshes.length).toBe(refreshes);
      expect(github.requests.length).toBe(requests);
      // Nothing changed in the vault: the operator may point the connection back.
      const after = await vaultRow();
      expect(after).toMatchObject({
        accessToken: before.accessToken,
        refreshToken: before.refreshToken,
        reconnectRequiredAt: null,
      });
    } finally {
      await proxy.prisma.upstreamToken.update({
        where: { userId_connection: { userId, connection: 'upstream' } },
        data: { provider: before.provider, expiresAt: before.expiresAt },
      });
    }
    expect((await exchange(exchanger)).status).toBe(200);
  });

  it('marks the connection as needing the user when GitHub no longer honours the grant, and says so', async () => {
    github.revokeAuthorization(OCTOCAT.id, app.clientId);
    await proxy.prisma.upstreamToken.update({
      where: { userId_connection: { userId, connection: 'upstream' } },
      data: { expiresAt: new Date(Date.now() + 10_000) },
    });
    const answer = await exchange(exchanger);
    expect(answer.status).toBe(400);
    expect(answer.body['error']).toBe('invalid_grant');
    expect(String(answer.body['error_description'])).toContain('connect upstream again');
    const row = await vaultRow();
    expect(row).toMatchObject({ accessToken: null, refreshToken: null });
    expect(row.reconnectRequiredAt).not.toBeNull();
    const lost = await proxy.prisma.securityEvent.findMany({ where: { type: 'upstream_connection.lost' } });
    expect(lost.map((event) => event.userId)).toEqual([userId]);
    // Asked again, the vault does not ask GitHub again: the user must connect first.
    const refreshes = github.refreshes.length;
    expect((await exchange(exchanger)).body['error']).toBe('invalid_grant');
    expect(github.refreshes.length).toBe(refreshes);
  });

  /** How many exchanges were refused so far. */
  const refusals = () => proxy.prisma.securityEvent.count({ where: { type: 'token_exchange.refused' } });
});
