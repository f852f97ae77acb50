// The proxy under test on a loopback port chosen before boot (its issuer, `http://localhost:<port>`, must be
// known to the upstream, which registers its callback, and to the protected server), with helpers to arrange
// clients and to count everything an authorization writes.
import { randomBytes } from 'node:crypto';
import { ClientRepository } from '@portcullis/authorization';
import type { PrismaClient } from '@portcullis/persistence';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import { startApp, type TestApp, type TestDatabase } from '@portcullis/testing';
import { AppModule, type ProxyHostOptions } from '../../src/app.module.js';
import type { ProxyOptions } from '../../src/proxy.options.js';

export interface ProxyFixture {
  readonly app: TestApp;
  /** `http://localhost:<port>` */
  readonly issuer: string;
  readonly prisma: PrismaClient;
  createClient(options?: {
    origin?: 'preregistered' | 'dynamic';
    redirectUri?: string;
    name?: string;
  }): Promise<TestClient>;
  /** Row counts of everything a sign-in or an authorization writes. */
  counts(): Promise<Record<CountedTable, number>>;
  close(): Promise<void>;
}

export type CountedTable =
  | 'codes'
  | 'grants'
  | 'accessTokens'
  | 'refreshTokens'
  | 'consents'
  | 'users'
  | 'sessions'
  | 'upstreamIdentities'
  | 'upstreamTokens'
  | 'upstreamStates';

export interface TestClient {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly name: string;
}

/** The port the proxy will listen on, so that its callback URL can be registered upstream before it starts. */
export function proxyCallback(port: number): string {
  return `http://localhost:${port}/upstream/callback`;
}

export async function startProxy(options: {
  port: number;
  upstream: { issuer: string; clientId: string; clientSecret: string };
  resource: string;
  env?: Record<string, string>;
  host?: ProxyHostOptions;
  database?: TestDatabase;
  /** Keep the log lines for `app.logs()`. */
  captureLogs?: boolean;
}): Promise<ProxyFixture> {
  const issuer = `http://localhost:${options.port}`;
  const host = options.host ?? {};
  const app = await startApp(
    { configure: (env, overrides) => AppModule.configure(env, overrides, host) },
    {
      port: options.port,
      ...(options.database ? { database: options.database } : {}),
      ...(options.captureLogs ? { captureLogs: true } : {}),
      env: {
        ISSUER: issuer,
        COOKIE_SECRET: randomBytes(32).toString('base64url'),
        RATE_LIMIT_TOKEN: '10000',
        RATE_LIMIT_LOGIN: '10000',
        RATE_LIMIT_REGISTER: '10000',
        UPSTREAM_ISSUER: options.upstream.issuer,
        UPSTREAM_CLIENT_ID: options.upstream.clientId,
        UPSTREAM_CLIENT_SECRET: options.upstream.clientSecret,
        UPSTREAM_SCOPES: 'openid profile',
        UPSTREAM_TIMEOUT_MS: '5000',
        RESOURCES: JSON.stringify([
          {
            uri: options.resource,
            name: 'Portcullis notes',
            scopes_supported: ['notes:read', 'notes:write'],
            scope_hierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
          },
        ]),
        ...options.env,
      },
    },
  );
  const prisma = app.database.database.prisma;
  const clients = new ClientRepository(prisma);
  let sequence = 0;
  return {
    app,
    issuer,
    prisma,
    async createClient(client = {}) {
      sequence += 1;
      const redirectUri = client.redirectUri ?? 'http://127.0.0.1/callback';
      const name = client.name ?? `Test client ${sequence}`;
      const created = await clients.create({
        clientId: `client-${sequence}-${randomBytes(4).toString('hex')}`,
        clientName: name,
        redirectUris: [redirectUri],
        grantTypes: ['authorization_code', 'refresh_token'],
        tokenEndpointAuthMethod: 'none',
        applicationType: 'native',
        origin: client.origin ?? 'dynamic',
      });
      return { clientId: created.clientId, redirectUri, name };
    },
    async counts() {
      const [
        codes,
        grants,
        accessTokens,
        refreshTokens,
        consents,
        users,
        sessions,
        identities,
        tokens,
        states,
      ] = await Promise.all([
        prisma.authorizationCode.count(),
        prisma.authorizationGrant.count(),
        prisma.accessToken.count(),
        prisma.refreshToken.count(),
        prisma.consent.count(),
        prisma.user.count(),
        prisma.loginSession.count(),
        prisma.upstreamIdentity.count(),
        prisma.upstreamToken.count(),
        prisma.upstreamState.count(),
      ]);
      return {
        codes,
        grants,
        accessTokens,
        refreshTokens,
        consents,
        users,
        sessions,
        upstreamIdentities: identities,
        upstreamTokens: tokens,
        upstreamStates: states,
      };
    },
    close: () => app.close(),
  };
}

/** The PKCE pair and URL of one authorization request at the proxy. */
export interface AuthorizationRequest {
  readonly verifier: string;
  readonly state: string;
  readonly url: string;
}

export function authorizationRequest(
  proxy: ProxyFixture,
  client: TestClient,
  resource: string,
  overrides: Record<string, string | undefined> = {},
): AuthorizationRequest {
  const verifier = generateCodeVerifier();
  const state = randomBytes(16).toString('base64url');
  const values: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: codeChallengeS256(verifier),
    code_challenge_method: 'S256',
    resource,
    scope: 'notes:read',
    state,
    ...overrides,
  };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.append(name, value);
  return { verifier, state, url: `${proxy.issuer}/authorize?${params.toString()}` };
}

/** Redeems the code of a callback URL at the proxy's token endpoint. */
export async function redeem(
  proxy: ProxyFixture,
  client: TestClient,
  callback: URL,
  request: AuthorizationRequest,
  resource: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${proxy.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: request.verifier,
      resource,
    }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Proxy options for building one of its repositories beside the running app: `sealingKey` opens what it sealed;
 * `issuer` is the provider the sign-in connection names (the token vault uses its rows only when they match).
 */
export function repositoryOptions(
  sealingKey: Uint8Array = new Uint8Array(32),
  issuer = 'http://127.0.0.1:9',
): ProxyOptions {
  return {
    upstream: {
      provider: { name: 'oidc' },
      issuer,
      clientId: 'unused',
      scopes: ['openid'],
      timeoutMs: 1000,
      redirectUri: 'http://localhost:9/upstream/callback',
    },
    connections: new Map(),
    sealingKey,
    consentCookieTtl: 60,
  };
}
