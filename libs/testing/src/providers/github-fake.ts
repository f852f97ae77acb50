// A GitHub for tests, on loopback, written from GitHub's public documentation ("Authorizing OAuth apps",
// "Generating a user access token for a GitHub App", "Refreshing user access tokens", the REST API's users,
// emails and organization membership endpoints) with the quirks a client of GitHub meets:
// - the token endpoint answers form-encoded unless asked `Accept: application/json`, and reports every error
//   (`incorrect_client_credentials`, `redirect_uri_mismatch`, `bad_verification_code`, `bad_refresh_token`) with
//   HTTP 200 and an `error` member;
// - the granted `scope` is comma-separated;
// - a redirect URI that is not the registered callback (same host and port, its path or a path below it) is sent
//   to the registered callback with `error=redirect_uri_mismatch`; a person who cancels comes back with
//   `error=access_denied`;
// - PKCE (`code_challenge_method` S256 or plain) is checked when a challenge was sent;
// - a GitHub App's user token expires after 8 hours and comes with a refresh token that rotates on use;
// - the REST API (under `/api/v3`, as on GitHub Enterprise Server) refuses a request without `User-Agent`, serves
//   `/user` (the numeric `id`, the changeable `login`), `/user/emails` only with scope `user:email` or `user`, and
//   organization and team membership only with scope `read:org` (or wider).
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { constantTimeEqual } from '@portcullis/protocol';
import { escape, page, redirect, send } from './fake-http.js';
import { startLoopbackServer, type ReceivedRequest } from '../user-agent/loopback-server.js';

/** A person with a GitHub account. */
export interface GithubFakeUser {
  /** The stable numeric id. */
  readonly id: number;
  /** The login name, which its owner can change (see {@link GithubFake.renameUser}). */
  login: string;
  readonly name?: string | null;
  /** The password the sign-in page checks; unset, any password (the sign-in is GitHub's business, not the test's). */
  readonly password?: string;
  readonly emails?: readonly { email: string; primary: boolean; verified: boolean }[];
  /** Organizations the person is an active member of. */
  readonly organizations?: readonly string[];
  /** Teams, as `organization/team`. */
  readonly teams?: readonly string[];
}

/** An app registered at the fake: an OAuth App, or a GitHub App (whose user tokens expire). */
export interface GithubFakeApp {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly callbackUrl: string;
  readonly kind: 'oauth-app' | 'github-app';
}

export interface GithubFake {
  /** `http://127.0.0.1:<port>`: the host of the OAuth endpoints, GitHub Enterprise Server's base URL. */
  readonly baseUrl: string;
  /** `<baseUrl>/api/v3`: the REST API, where Enterprise Server serves it. */
  readonly apiUrl: string;
  /** Every request received, in order. */
  readonly requests: readonly ReceivedRequest[];
  registerApp(app: { callbackUrl: string; kind?: GithubFakeApp['kind'] }): GithubFakeApp;
  addUser(user: GithubFakeUser): void;
  /** The owner deletes every client secret of the app: token requests answer `incorrect_client_credentials`. */
  deleteClientSecrets(clientId: string): void;
  /** The person changes their login; the numeric id stays. */
  renameUser(id: number, login: string): void;
  /**
   * The person revokes the app's authorization (Settings, Applications): every access and refresh token the app
   * holds for them stops working (the API answers 401, a refresh `bad_refresh_token`).
   */
  revokeAuthorization(userId: number, clientId: string): void;
  /** Every refresh grant the token endpoint answered with tokens, in order. */
  readonly refreshes: readonly { readonly userId: number; readonly refreshToken: string }[];
  /** Every authorization an app deleted through the API (`DELETE /applications/{client_id}/grant`), in order. */
  readonly deletedGrants: readonly { readonly userId: number; readonly clientId: string }[];
  /** Every code, access token and refresh token the fake issued. */
  issued(): ReadonlySet<string>;
  close(): Promise<void>;
}

interface PendingAuthorization {
  readonly app: GithubFakeApp;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state?: string;
  readonly challenge?: { value: string; method: 'S256' | 'plain' };
  userId?: number;
}

interface IssuedCode extends PendingAuthorization {
  readonly userId: number;
  readonly expiresAt: number;
  used: boolean;
}

interface IssuedToken {
  readonly clientId: string;
  readonly userId: number;
  readonly scopes: readonly string[];
  readonly expiresAt?: number;
}

/** A token endpoint answer's members, before it is written as JSON or form-encoded. */
type TokenAnswer = Readonly<Record<string, string | number | undefined>>;

/** GitHub's code lifetime (10 minutes) and a GitHub App user token's (8 hours). */
const CODE_TTL_MS = 10 * 60_000;
const GITHUB_APP_TOKEN_TTL_S = 8 * 3600;
/** The token endpoint's `error_uri`: a path on GitHub's documentation site, as GitHub sends it. */
const DOCS = '/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/';

export async function startGithubFake(
  options: {
    users?: readonly GithubFakeUser[];
    /** The lifetime of a GitHub App's user token, in seconds; GitHub's is 8 hours. */
    userTokenTtlSeconds?: number;
  } = {},
): Promise<GithubFake> {
  const userTokenTtl = options.userTokenTtlSeconds ?? GITHUB_APP_TOKEN_TTL_S;
  const refreshes: { userId: number; refreshToken: string }[] = [];
  const apps = new Map<string, { app: GithubFakeApp; secrets: Set<string> }>();
  const users = new Map<number, GithubFakeUser>();
  const pending = new Map<string, PendingAuthorization>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, IssuedToken>();
  const issued = new Set<string>();
  const deletedGrants: { userId: number; clientId: string }[] = [];
  for (const user of options.users ?? []) users.set(user.id, { ...user });

  /** Every access and refresh token of `userId`'s authorization of the app `clientId` ends. */
  function revokeAuthorization(userId: number, clientId: string): void {
    for (const tokens of [accessTokens, refreshTokens]) {
      for (const [token, grant] of tokens) {
        if (grant.userId === userId && grant.clientId === clientId) tokens.delete(token);
      }
    }
  }

  const server = await startLoopbackServer((request, response) => {
    const url = new URL(request.path, 'http://github.invalid');
    if (url.pathname.startsWith('/api/v3/')) return api(request, url, response);
    if (url.pathname === '/login/oauth/authorize' && request.method === 'GET')
      return authorize(url, response);
    if (url.pathname === '/session' && request.method === 'POST') return signIn(request, response);
    if (url.pathname === '/login/oauth/authorize' && request.method === 'POST')
      return decide(request, response);
    if (url.pathname === '/login/oauth/access_token' && request.method === 'POST') {
      return accessToken(request, url, response);
    }
    send(response, 404, 'text/plain', 'Not Found');
  });
  const baseUrl = server.url;

  /** GET /login/oauth/authorize: checks the app and the redirect URI, then asks the person to sign in. */
  function authorize(url: URL, response: ServerResponse) {
    const params = url.searchParams;
    const registered = apps.get(params.get('client_id') ?? '');
    if (!registered) return page(response, 404, 'Not Found', '<p>The application was not found.</p>');
    const { app } = registered;
    const state = params.get('state') ?? undefined;
    const redirectUri = params.get('redirect_uri') ?? app.callbackUrl;
    if (!isUnderCallback(redirectUri, app.callbackUrl)) {
      return redirect(response, app.callbackUrl, {
        error: 'redirect_uri_mismatch',
        error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
        error_uri:
          '/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#redirect-uri-mismatch',
        ...(state ? { state } : {}),
      });
    }
    const method = params.get('code_challenge_method') ?? 'plain';
    const challenge = params.get('code_challenge');
    if (challenge && method !== 'S256' && method !== 'plain') {
      return page(response, 400, 'Bad request', '<p>Unsupported code_challenge_method.</p>');
    }
    const id = randomBytes(12).toString('hex');
    pending.set(id, {
      app,
      redirectUri,
      scopes: (params.get('scope') ?? '').split(/[ ,]+/).filter(Boolean),
      ...(state ? { state } : {}),
      ...(challenge ? { challenge: { value: challenge, method: method as 'S256' | 'plain' } } : {}),
    });
    page(
      response,
      200,
      'Sign in to GitHub',
      `<form method="post" action="/session">
         <input type="hidden" name="authorization" value="${id}">
         <label>Username or email address <input name="login"></label>
         <label>Password <input type="password" name="password"></label>
         <button type="submit">Sign in</button>
       </form>`,
    );
  }

  /** POST /session: the person signs in, then is asked to authorize the app. */
  function signIn(request: ReceivedRequest, response: ServerResponse) {
    const form = new URLSearchParams(request.body);
    const authorization = pending.get(form.get('authorization') ?? '');
    if (!authorization) return page(response, 400, 'Bad request', '<p>This sign-in has expired.</p>');
    const user = [...users.values()].find((each) => each.login === form.get('login'));
    if (!user || (user.password !== undefined && user.password !== form.get('password'))) {
      return page(response, 401, 'Sign in to GitHub', '<p>Incorrect username or password.</p>');
    }
    authorization.userId = user.id;
    const id = form.get('authorization') ?? '';
    page(
      response,
      200,
      `Authorize ${escape(authorization.app.clientId)}`,
      `<p>Signed in as ${escape(user.login)}. Scopes: ${escape(authorization.scopes.join(', ') || '(none)')}</p>
       <form method="post" action="/login/oauth/authorize">
         <input type="hidden" name="authorization" value="${id}">
         <button type="submit" name="authorize" value="1">Authorize</button>
         <button type="submit" name="authorize" value="0">Cancel</button>
       </form>`,
    );
  }

  /** POST /login/oauth/authorize: the person's answer; a code, or `access_denied`, to the redirect URI. */
  function decide(request: ReceivedRequest, response: ServerResponse) {
    const form = new URLSearchParams(request.body);
    const id = form.get('authorization') ?? '';
    const authorization = pending.get(id);
    pending.delete(id);
    if (!authorization?.userId) return page(response, 400, 'Bad request', '<p>This sign-in has expired.</p>');
    const state = authorization.state ? { state: authorization.state } : {};
    if (form.get('authorize') !== '1') {
      return redirect(response, authorization.redirectUri, {
        error: 'access_denied',
        error_description: 'The user has denied your application access.',
        error_uri:
          'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied',
        ...state,
      });
    }
    const code = randomBytes(10).toString('hex');
    issued.add(code);
    codes.set(code, {
      ...authorization,
      userId: authorization.userId,
      expiresAt: Date.now() + CODE_TTL_MS,
      used: false,
    });
    redirect(response, authorization.redirectUri, { code, ...state });
  }

  /** POST /login/oauth/access_token: a code (with its verifier) or a GitHub App's refresh token, for tokens. */
  function accessToken(request: ReceivedRequest, url: URL, response: ServerResponse) {
    const form = new URLSearchParams(request.body);
    // GitHub reads the parameters from the query string too.
    for (const [name, value] of url.searchParams) if (!form.has(name)) form.set(name, value);
    const answer = (body: TokenAnswer) => tokenAnswer(request, response, body);
    const fail = (error: string, description: string) =>
      answer({ error, error_description: description, error_uri: DOCS });
    const registered = apps.get(form.get('client_id') ?? '');
    const secret = form.get('client_secret') ?? '';
    if (!registered || ![...registered.secrets].some((each) => constantTimeEqual(each, secret))) {
      return fail('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    }
    const { app } = registered;
    if (form.get('grant_type') === 'refresh_token') {
      const refreshToken = form.get('refresh_token') ?? '';
      const previous = refreshTokens.get(refreshToken);
      if (!previous || previous.clientId !== app.clientId || app.kind !== 'github-app') {
        return fail('bad_refresh_token', 'The refresh token passed is incorrect or expired.');
      }
      // Rotation: the refresh token is spent.
      refreshTokens.delete(refreshToken);
      refreshes.push({ userId: previous.userId, refreshToken });
      return answer(tokensFor(app, previous.userId, previous.scopes));
    }
    const code = codes.get(form.get('code') ?? '');
    if (!code || code.used || code.expiresAt < Date.now() || code.app.clientId !== app.clientId) {
      return fail('bad_verification_code', 'The code passed is incorrect or expired.');
    }
    const redirectUri = form.get('redirect_uri');
    if (redirectUri !== null && redirectUri !== code.redirectUri) {
      return fail(
        'redirect_uri_mismatch',
        'The redirect_uri MUST match the registered callback URL for this application.',
      );
    }
    if (code.challenge && !verifierMatches(code.challenge, form.get('code_verifier'))) {
      return fail('bad_verification_code', 'The code passed is incorrect or expired.');
    }
    code.used = true;
    answer(tokensFor(app, code.userId, code.scopes));
  }

  function tokensFor(app: GithubFakeApp, userId: number, scopes: readonly string[]): TokenAnswer {
    if (app.kind === 'github-app') {
      const access = `ghu_${randomBytes(18).toString('base64url')}`;
      const refresh = `ghr_${randomBytes(38).toString('base64url')}`;
      const record = { clientId: app.clientId, userId, scopes };
      accessTokens.set(access, { ...record, expiresAt: Date.now() + userTokenTtl * 1000 });
      refreshTokens.set(refresh, record);
      issued.add(access).add(refresh);
      return {
        access_token: access,
        expires_in: userTokenTtl,
        refresh_token: refresh,
        refresh_token_expires_in: 15_897_600,
        // A GitHub App's permissions are its own, not scopes.
        scope: '',
        token_type: 'bearer',
      };
    }
    const access = `gho_${randomBytes(18).toString('base64url')}`;
    accessTokens.set(access, { clientId: app.clientId, userId, scopes });
    issued.add(access);
    return { access_token: access, scope: scopes.join(','), token_type: 'bearer' };
  }

  /**
   * `DELETE /applications/{client_id}/grant` ("Delete an app authorization"): the app, authenticated with HTTP Basic
   * (its client ID and secret), names one of its user's access tokens; every token of that person's authorization
   * of the app ends (204). A token of another app, or none: 422; wrong credentials: 404, as GitHub answers.
   */
  function deleteGrant(
    request: ReceivedRequest,
    clientId: string,
    response: ServerResponse,
    json: (status: number, body: unknown) => void,
    message: (status: number, text: string) => void,
  ) {
    const basic = /^basic (.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const registered = apps.get(decodeURIComponent(clientId));
    if (
      !registered ||
      id !== registered.app.clientId ||
      ![...registered.secrets].some((each) => constantTimeEqual(each, secret ?? ''))
    ) {
      return message(404, 'Not Found');
    }
    let accessToken: unknown;
    try {
      accessToken = (JSON.parse(request.body) as { access_token?: unknown }).access_token;
    } catch {
      accessToken = undefined;
    }
    const grant = typeof accessToken === 'string' ? accessTokens.get(accessToken) : undefined;
    if (!grant || grant.clientId !== registered.app.clientId) {
      return json(422, { message: 'Validation Failed', documentation_url: 'https://docs.github.com/rest' });
    }
    deletedGrants.push({ userId: grant.userId, clientId: grant.clientId });
    revokeAuthorization(grant.userId, grant.clientId);
    response.writeHead(204);
    response.end();
  }

  /** The REST API, under /api/v3. */
  function api(request: ReceivedRequest, url: URL, response: ServerResponse) {
    const json = (status: number, body: unknown) =>
      send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
    const message = (status: number, text: string) =>
      json(status, {
        message: text,
        documentation_url: 'https://docs.github.com/rest',
        status: String(status),
      });
    if (!request.headers['user-agent']) {
      return send(
        response,
        403,
        'text/plain',
        'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.',
      );
    }
    const deletion = /^\/api\/v3\/applications\/([^/]+)\/grant$/.exec(url.pathname);
    if (deletion?.[1] && request.method === 'DELETE') {
      return deleteGrant(request, deletion[1], response, json, message);
    }
    const token = /^(?:token|bearer) (.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    const grant = token ? accessTokens.get(token) : undefined;
    const user = grant ? users.get(grant.userId) : undefined;
    if (!grant || !user || (grant.expiresAt !== undefined && grant.expiresAt < Date.now())) {
      return message(401, 'Bad credentials');
    }
    if (request.method !== 'GET') return message(404, 'Not Found');
    const isApp = apps.get(grant.clientId)?.app.kind === 'github-app';
    const hasScope = (...names: string[]) => isApp || names.some((name) => grant.scopes.includes(name));
    const path = url.pathname.slice('/api/v3'.length);
    if (path === '/user') {
      return json(200, {
        login: user.login,
        id: user.id,
        node_id: Buffer.from(`04:User${user.id}`).toString('base64'),
        type: 'User',
        site_admin: false,
        name: user.name ?? null,
        // The public address, which the person chooses to show; not a statement that it is theirs and verified.
        email: null,
      });
    }
    if (path === '/user/emails') {
      if (!hasScope('user:email', 'user')) return message(404, 'Not Found');
      return json(
        200,
        (user.emails ?? []).map((each) => ({ ...each, visibility: each.primary ? 'private' : null })),
      );
    }
    const orgScope = () => hasScope('read:org', 'write:org', 'admin:org');
    const membership = /^\/user\/memberships\/orgs\/([^/]+)$/.exec(path);
    if (membership) {
      if (!orgScope())
        return message(
          403,
          'You need at least read:org scope or user scope to list your organization memberships.',
        );
      const organization = segment(membership, 1);
      if (!(user.organizations ?? []).includes(organization)) return message(404, 'Not Found');
      return json(200, {
        state: 'active',
        role: 'member',
        organization: { login: organization },
        user: { login: user.login, id: user.id },
      });
    }
    const member = /^\/orgs\/([^/]+)\/members\/([^/]+)$/.exec(path);
    if (member) {
      const organization = segment(member, 1);
      const other = [...users.values()].find((each) => each.login === segment(member, 2));
      const visible = orgScope() && (user.organizations ?? []).includes(organization);
      if (!visible || !other || !(other.organizations ?? []).includes(organization)) {
        return send(response, 404, 'application/json; charset=utf-8', '');
      }
      return send(response, 204, 'text/plain', '');
    }
    const team = /^\/orgs\/([^/]+)\/teams\/([^/]+)\/memberships\/([^/]+)$/.exec(path);
    if (team) {
      if (!orgScope()) return message(403, 'Resource not accessible by integration');
      const slug = `${segment(team, 1)}/${segment(team, 2)}`;
      const other = [...users.values()].find((each) => each.login === segment(team, 3));
      if (!other || !(other.teams ?? []).includes(slug)) return message(404, 'Not Found');
      return json(200, { state: 'active', role: 'member', url: `${baseUrl}/api/v3${path}` });
    }
    return message(404, 'Not Found');
  }

  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/v3`,
    requests: server.requests,
    registerApp({ callbackUrl, kind = 'oauth-app' }) {
      const app: GithubFakeApp = {
        clientId: `${kind === 'github-app' ? 'Iv1.' : 'Ov23li'}${randomBytes(8).toString('hex')}`,
        clientSecret: randomBytes(20).toString('hex'),
        callbackUrl,
        kind,
      };
      apps.set(app.clientId, { app, secrets: new Set([app.clientSecret]) });
      return app;
    },
    addUser(user) {
      users.set(user.id, { ...user });
    },
    deleteClientSecrets(clientId) {
      apps.get(clientId)?.secrets.clear();
    },
    renameUser(id, login) {
      const user = users.get(id);
      if (user) user.login = login;
    },
    revokeAuthorization,
    refreshes,
    deletedGrants,
    issued: () => issued,
    close: () => server.close(),
  };
}

/**
 * The token endpoint's answer, in the format the request's `Accept` asks for: JSON, else form-encoded; errors too,
 * with status 200.
 */
function tokenAnswer(request: ReceivedRequest, response: ServerResponse, body: TokenAnswer) {
  if (String(request.headers.accept ?? '').includes('application/json')) {
    return send(response, 200, 'application/json; charset=utf-8', JSON.stringify(body));
  }
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) if (value !== undefined) form.set(name, String(value));
  send(response, 200, 'application/x-www-form-urlencoded; charset=utf-8', form.toString());
}

/**
 * GitHub's rule for a redirect URI: the callback URL's scheme, host and port, and its path or a path below it.
 *
 * @see https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#redirect-urls
 */
function isUnderCallback(redirectUri: string, callbackUrl: string): boolean {
  let candidate: URL;
  try {
    candidate = new URL(redirectUri);
  } catch {
    return false;
  }
  const callback = new URL(callbackUrl);
  const base = callback.pathname.endsWith('/') ? callback.pathname : `${callback.pathname}/`;
  return (
    candidate.origin === callback.origin &&
    (candidate.pathname === callback.pathname || candidate.pathname.startsWith(base)) &&
    !candidate.pathname.split('/').includes('..')
  );
}

function verifierMatches(
  challenge: { value: string; method: 'S256' | 'plain' },
  verifier: string | null,
): boolean {
  if (!verifier) return false;
  const computed =
    challenge.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return constantTimeEqual(computed, challenge.value);
}

/** A path segment a pattern captured, decoded. */
function segment(match: RegExpExecArray, index: number): string {
  return decodeURIComponent(match[index] ?? '');
}
