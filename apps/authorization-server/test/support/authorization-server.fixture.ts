import { randomBytes } from 'node:crypto';
import {
  ClientRepository,
  generateClientSecret,
  hashClientSecret,
  UserRepository,
} from '@portcullis/authorization';
import type { PrismaClient } from '@portcullis/persistence';
import type { PortcullisAppModule } from '@portcullis/platform';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import {
  freePort,
  startApp,
  type HeadlessUserAgent,
  type TestApp,
  type TestDatabase,
  type UserAgentResponse,
} from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';

export const RESOURCE = 'http://localhost:4100/mcp';
export const PASSWORD = 'correct horse battery staple';

/** A running authorization server on a loopback port that is also its issuer, with helpers to arrange data. */
export interface AuthorizationServerFixture {
  readonly app: TestApp;
  /** The issuer, `http://localhost:<port>`: what metadata, tokens and `iss` carry. */
  readonly issuer: string;
  readonly prisma: PrismaClient;
  createClient(options?: ClientOptions): Promise<TestClient>;
  createUser(username?: string): Promise<{ id: string; username: string; password: string }>;
  /** Row counts of everything an authorization writes. */
  counts(): Promise<Record<'codes' | 'grants' | 'accessTokens' | 'refreshTokens' | 'consents', number>>;
  close(): Promise<void>;
}

export interface ClientOptions {
  /** Its client ID; a fresh one by default. */
  clientId?: string;
  redirectUris?: string[];
  grantTypes?: string[];
  confidential?: 'client_secret_basic' | 'client_secret_post';
  /** As `portcullis-admin clients create` sets it by default: `web` when every redirect URI is https, else `native`. */
  applicationType?: 'native' | 'web';
  name?: string;
  /** Make it the resource server of this resource URI (what `portcullis-admin clients create --resource-server` does). */
  resourceServer?: string;
}

export interface TestClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

export async function startAuthorizationServer(
  options: {
    env?: Record<string, string>;
    database?: TestDatabase;
    appModule?: PortcullisAppModule;
    /** Keep the log lines for `app.logs()`. */
    captureLogs?: boolean;
    /** The loopback port (and so the issuer), when another server must be configured with it first. */
    port?: number;
  } = {},
): Promise<AuthorizationServerFixture> {
  const port = options.port ?? (await freePort());
  const issuer = `http://localhost:${port}`;
  const app = await startApp(options.appModule ?? AppModule, {
    port,
    ...(options.database ? { database: options.database } : {}),
    ...(options.captureLogs ? { captureLogs: true } : {}),
    env: {
      ISSUER: issuer,
      COOKIE_SECRET: randomBytes(32).toString('base64url'),
      RATE_LIMIT_TOKEN: '10000',
      RATE_LIMIT_LOGIN: '10000',
      ...options.env,
    },
  });
  const prisma = app.database.database.prisma;
  const clients = new ClientRepository(prisma);
  const users = new UserRepository(prisma);
  let sequence = 0;
  return {
    app,
    issuer,
    prisma,
    async createClient(client = {}) {
      sequence += 1;
      const redirectUris = client.redirectUris ?? ['http://127.0.0.1/callback'];
      const secret = client.confidential ? generateClientSecret() : undefined;
      const created = await clients.create({
        clientId: client.clientId ?? `client-${sequence}-${randomBytes(4).toString('hex')}`,
        clientName: client.name ?? `Test client ${sequence}`,
        redirectUris,
        grantTypes: client.grantTypes ?? ['authorization_code', 'refresh_token'],
        tokenEndpointAuthMethod: client.confidential ?? 'none',
        applicationType:
          client.applicationType ??
          (redirectUris.length > 0 && redirectUris.every((uri) => uri.startsWith('https:'))
            ? 'web'
            : 'native'),
        origin: 'preregistered',
        ...(secret ? { secretHash: hashClientSecret(secret) } : {}),
        ...(client.resourceServer ? { resourceServer: client.resourceServer } : {}),
      });
      return {
        clientId: created.clientId,
        ...(secret ? { clientSecret: secret } : {}),
        redirectUri: redirectUris[0]!,
      };
    },
    async createUser(username = `user-${randomBytes(4).toString('hex')}`) {
      const user = await users.create(username, PASSWORD);
      return { id: user.id, username, password: PASSWORD };
    },
    async counts() {
      const [codes, grants, accessTokens, refreshTokens, consents] = await Promise.all([
        prisma.authorizationCode.count(),
        prisma.authorizationGrant.count(),
        prisma.accessToken.count(),
        prisma.refreshToken.count(),
        prisma.consent.count(),
      ]);
      return { codes, grants, accessTokens, refreshTokens, consents };
    },
    close: () => app.close(),
  };
}

/** The PKCE pair and the parameters of one authorization request. */
export interface AuthorizationRequest {
  verifier: string;
  state: string;
  nonce: string;
  url: string;
}

export function authorizationRequest(
  fixture: AuthorizationServerFixture,
  client: TestClient,
  overrides: Record<string, string | undefined> = {},
): AuthorizationRequest {
  const verifier = generateCodeVerifier();
  const state = randomBytes(16).toString('base64url');
  const nonce = randomBytes(16).toString('base64url');
  const params = new URLSearchParams();
  const values: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: codeChallengeS256(verifier),
    code_challenge_method: 'S256',
    resource: RESOURCE,
    scope: 'notes:read',
    state,
    ...overrides,
  };
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.append(name, value);
  return { verifier, state, nonce, url: `${fixture.app.url}/authorize?${params.toString()}` };
}

/**
 * Drives login and consent on the real pages with the headless user-agent and returns the URL the server sent
 * the browser back to (never requested).
 */
export async function authorize(
  ua: HeadlessUserAgent,
  request: AuthorizationRequest,
  user: { username: string; password: string },
  client: TestClient,
): Promise<URL> {
  const isCallback = (url: string) => url.startsWith(client.redirectUri);
  let step = await settle(ua, await ua.get(request.url), isCallback);
  for (let pages = 0; !step.stoppedAt && pages < 4; pages++) {
    const form = step.response.form();
    const next =
      'username' in form.fields
        ? await ua.submit(form, { username: user.username, password: user.password })
        : await ua.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
    step = await settle(ua, next, isCallback);
  }
  if (!step.stoppedAt) throw new Error(`the flow did not come back to the client: ${step.response.status}`);
  return step.stoppedAt;
}

/**
 * Follows redirects until one points at the client (not requested) or a page arrives.
 */
export async function settle(
  ua: HeadlessUserAgent,
  response: UserAgentResponse,
  isCallback: (url: string) => boolean,
): Promise<{ stoppedAt?: URL; response: UserAgentResponse }> {
  let current = response;
  for (let hops = 0; hops < 10; hops++) {
    if (![301, 302, 303, 307, 308].includes(current.status) || !current.location)
      return { response: current };
    if (isCallback(current.location)) return { stoppedAt: new URL(current.location), response: current };
    current = await ua.follow(current);
  }
  throw new Error('too many redirects');
}

/** POSTs a form to the token endpoint. */
export async function tokenRequest(
  fixture: AuthorizationServerFixture,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) form.append(name, value);
  const response = await fetch(`${fixture.app.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** Redeems the code of a callback URL. */
export function redeem(
  fixture: AuthorizationServerFixture,
  client: TestClient,
  callback: URL,
  request: AuthorizationRequest,
  extra: Record<string, string | undefined> = {},
) {
  return tokenRequest(fixture, {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? undefined,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: request.verifier,
    resource: RESOURCE,
    ...extra,
  });
}
