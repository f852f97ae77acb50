/**
 * Several instances of the built authorization server (its `dist/main.js`, a process each) on one PostgreSQL (and
 * one Redis when given) behind a round-robin balancer whose URL is the issuer, as a deployment runs them; and the
 * authorization code flow through the real pages, for fault tests.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ClientRepository,
  generateClientSecret,
  hashClientSecret,
  UserRepository,
} from '@portcullis/authorization';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import { freePort } from './free-port.js';
import { startBalancer, type Balancer } from './balancer.js';
import { startDatabase, type TestDatabase } from './database.js';
import { spawnApp, type SpawnedApp } from './process.js';
import { HeadlessUserAgent, type UserAgentResponse } from './user-agent/headless-user-agent.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const AUTHORIZATION_SERVER_MAIN = join(root, 'apps/authorization-server/dist/main.js');
export const PROTECTED_SERVER_MAIN = join(root, 'apps/protected-server/dist/main.js');
export const PROXY_MAIN = join(root, 'apps/proxy/dist/main.js');

/** The resource the cluster issues tokens for (the default local protected server). */
export const RESOURCE = 'http://localhost:4100/mcp';
export const PASSWORD = 'correct horse battery staple';

/** One app process on its own loopback port. */
export interface Instance {
  readonly url: string;
  readonly process: SpawnedApp;
}

/**
 * Starts a built app as a process on a free loopback port (`port` to reuse one) and waits until `/readyz` answers
 * 200. Its log level is `warn` unless `env` says otherwise: request logs would cost load tests their throughput.
 */
export async function startInstance(
  main: string,
  env: Record<string, string>,
  port?: number,
): Promise<Instance> {
  const chosen = port ?? (await freePort());
  const process = spawnApp(main, { LOG_LEVEL: 'warn', ...env, PORT: String(chosen) });
  const url = `http://127.0.0.1:${chosen}`;
  let exited = false;
  void process.exited.then(() => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${main} exited before it was ready: ${process.stderr().trim()}`);
    if (Date.now() > deadline) throw new Error(`${main} was not ready within 60 s`);
    const status = await fetch(`${url}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { url, process };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface TestClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly redirectUri: string;
}

export interface AuthorizationServerCluster {
  readonly issuer: string;
  readonly balancer: Balancer;
  readonly database: TestDatabase;
  readonly instances: Instance[];
  /** The environment every instance runs with. */
  readonly env: Readonly<Record<string, string>>;
  /** Starts one more instance (not yet in rotation). */
  startInstance(): Promise<Instance>;
  createClient(options?: { confidential?: boolean; resourceServer?: string }): Promise<TestClient>;
  createUser(): Promise<{ id: string; username: string; password: string }>;
  stop(): Promise<void>;
}

/**
 * `count` authorization server processes on one fresh PostgreSQL database behind a balancer; `env` is added to the
 * environment of each (`REDIS_URL`, lifetimes).
 */
export async function startAuthorizationServers(
  count: number,
  env: Record<string, string> = {},
  options: {
    databaseVia?: (url: string) => string;
    /** One instance whose own URL is the issuer, with no balancer hop in front (benchmarks). */
    direct?: boolean;
  } = {},
): Promise<AuthorizationServerCluster> {
  if (options.direct && count !== 1) throw new Error('a direct cluster has exactly one instance');
  const database = await startDatabase();
  const balancer = await startBalancer();
  const directPort = options.direct ? await freePort() : undefined;
  const issuer = directPort === undefined ? balancer.url : `http://127.0.0.1:${directPort}`;
  const instances: Instance[] = [];
  const common = {
    DATABASE_URL: options.databaseVia ? options.databaseVia(database.url ?? '') : (database.url ?? ''),
    ISSUER: issuer,
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_TOKEN: '100000',
    RATE_LIMIT_LOGIN: '100000',
    ...env,
  };
  const prisma = database.database.prisma;
  const clients = new ClientRepository(prisma);
  const users = new UserRepository(prisma);
  let sequence = 0;
  const cluster: AuthorizationServerCluster = {
    issuer,
    balancer,
    database,
    instances,
    env: common,
    async startInstance() {
      const instance = await startInstance(
        AUTHORIZATION_SERVER_MAIN,
        common,
        instances.length === 0 ? directPort : undefined,
      );
      instances.push(instance);
      return instance;
    },
    async createClient(options = {}) {
      sequence += 1;
      const secret = options.confidential ? generateClientSecret() : undefined;
      const created = await clients.create({
        clientId: `client-${sequence}-${randomBytes(4).toString('hex')}`,
        clientName: `Fault test client ${sequence}`,
        redirectUris: ['http://127.0.0.1/callback'],
        grantTypes: ['authorization_code', 'refresh_token'],
        tokenEndpointAuthMethod: secret ? 'client_secret_basic' : 'none',
        applicationType: 'native',
        origin: 'preregistered',
        ...(secret ? { secretHash: hashClientSecret(secret) } : {}),
        ...(options.resourceServer ? { resourceServer: options.resourceServer } : {}),
      });
      return {
        clientId: created.clientId,
        ...(secret ? { clientSecret: secret } : {}),
        redirectUri: 'http://127.0.0.1/callback',
      };
    },
    async createUser() {
      const username = `user-${randomBytes(4).toString('hex')}`;
      const user = await users.create(username, PASSWORD);
      return { id: user.id, username, password: PASSWORD };
    },
    async stop() {
      await Promise.all(instances.map((instance) => instance.process.stop('SIGKILL')));
      await balancer.close();
      await database.stop();
    },
  };
  try {
    for (let i = 0; i < count; i++) balancer.add((await cluster.startInstance()).url);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** The PKCE pair and URL of one authorization request. */
export interface AuthorizationRequest {
  readonly verifier: string;
  readonly url: string;
}

export function authorizationRequest(
  issuer: string,
  client: TestClient,
  scope = 'notes:read',
  resource = RESOURCE,
): AuthorizationRequest {
  const verifier = generateCodeVerifier();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: codeChallengeS256(verifier),
    code_challenge_method: 'S256',
    resource,
    scope,
    state: randomBytes(12).toString('base64url'),
  });
  return { verifier, url: `${issuer}/authorize?${params.toString()}` };
}

async function settle(ua: HeadlessUserAgent, response: UserAgentResponse, client: TestClient) {
  let current = response;
  for (let hops = 0; hops < 10; hops++) {
    if (![301, 302, 303, 307, 308].includes(current.status) || !current.location)
      return { response: current };
    if (current.location.startsWith(client.redirectUri)) {
      return { callback: new URL(current.location), response: current };
    }
    current = await ua.follow(current);
  }
  throw new Error('too many redirects');
}

/** A page of the flow answered something other than a page to fill in (an error page, a 503). */
export class FlowStoppedError extends Error {
  readonly status: number;
  readonly retryAfter: boolean;
  /** The answer that stopped the flow. */
  readonly response: UserAgentResponse;

  constructor(response: UserAgentResponse) {
    // What answered and how (HAProxy's own 503 has no Retry-After; an app's says when to come back), for whoever
    // reads a failure after the stack is gone.
    const retryAfter = response.headers.get('retry-after');
    const text = response.body
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200);
    super(
      `the flow stopped with ${response.status} at ${response.request.method} ${response.url}` +
        `${retryAfter === null ? ' (no Retry-After)' : ` (Retry-After: ${retryAfter})`}${text ? `: ${text}` : ''}`,
    );
    this.name = 'FlowStoppedError';
    this.status = response.status;
    this.retryAfter = response.headers.has('retry-after');
    this.response = response;
  }
}

/**
 * Signs in and approves on the real pages with a headless user-agent; returns the callback URL (never requested).
 *
 * @throws FlowStoppedError when a page answers with anything but a form (an error page, a 503).
 */
export async function authorize(
  ua: HeadlessUserAgent,
  request: AuthorizationRequest,
  user: { username: string; password: string },
  client: TestClient,
): Promise<URL> {
  let step = await settle(ua, await ua.get(request.url), client);
  for (let pages = 0; !step.callback && pages < 4; pages++) {
    if (step.response.status !== 200) throw new FlowStoppedError(step.response);
    const form = step.response.form();
    const next =
      'username' in form.fields
        ? await ua.submit(form, { username: user.username, password: user.password })
        : await ua.submit(form, {}, { button: { name: 'decision', value: 'approve' } });
    step = await settle(ua, next, client);
  }
  if (!step.callback) throw new Error(`the flow did not come back to the client: ${step.response.status}`);
  return step.callback;
}

export interface TokenAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** POSTs a form to the token endpoint at `base`. */
export async function tokenRequest(
  base: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<TokenAnswer> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) form.append(name, value);
  const response = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, headers: response.headers, body };
}

export function redeem(base: string, client: TestClient, callback: URL, request: AuthorizationRequest) {
  return tokenRequest(base, {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? undefined,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: request.verifier,
  });
}

export function refresh(base: string, client: TestClient, refreshToken: string) {
  return tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
  });
}

/** What {@link signIn} asks for. */
export interface SignInOptions {
  readonly scope?: string;
  readonly resource?: string;
  /** The browser (its cookies: a session from an earlier sign-in); a new one by default. */
  readonly ua?: HeadlessUserAgent;
  /** Where to redeem the code; the issuer (the balancer) by default. */
  readonly tokenEndpointBase?: string;
}

/** One authorization through the real pages, its code redeemed: the token endpoint's answer. */
export async function signIn(
  issuer: string,
  client: TestClient,
  user: { username: string; password: string },
  options: SignInOptions = {},
): Promise<TokenAnswer> {
  const request = authorizationRequest(issuer, client, options.scope, options.resource);
  const callback = await authorize(options.ua ?? new HeadlessUserAgent(), request, user, client);
  return redeem(options.tokenEndpointBase ?? issuer, client, callback, request);
}

/** `count` refresh token families of one new user of the cluster, for `client`: their refresh tokens. */
export async function refreshFamilies(
  cluster: AuthorizationServerCluster,
  client: TestClient,
  count: number,
): Promise<string[]> {
  const user = await cluster.createUser();
  const ua = new HeadlessUserAgent();
  const families: string[] = [];
  for (let i = 0; i < count; i++) {
    const tokens = await signIn(cluster.issuer, client, user, { ua });
    if (tokens.status !== 200) throw new Error(`sign-in answered ${tokens.status}`);
    families.push(tokens.body['refresh_token'] as string);
  }
  return families;
}

/** Waits until `condition` holds, polling; returns how long it took. */
export async function waitFor(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if (await condition().catch(() => false)) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${withinMs} ms`);
}
