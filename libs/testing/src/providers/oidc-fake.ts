// The part every hand-written OpenID Connect provider fake shares (OpenID Connect Core 3.1, RFC 6749 4.1, RFC 7636):
// a sign-in page (any registered login name; a password only where the person has one), a consent page, single-use
// codes bound to the client, the redirect URI and an S256 PKCE challenge, client authentication (HTTP Basic or in
// the body, RFC 6749 2.3.1), ID tokens signed RS256 with a key published at the JWKS, and UserInfo with the access
// token. A refresh token (RFC 6749 6) is good only for the client it was issued to, and by default rotates: each
// use spends it and answers a new one, and a spent one presented again answers `invalid_grant` and revokes every
// refresh token descended from the same code (RFC 9700 4.14.2). What differs per provider (paths, the issuer, the
// realms, the claims, when a refresh token is issued and whether it rotates, which parameters are refused) is the
// preset's, in google-fake.ts, entra-fake.ts, okta-fake.ts, auth0-fake.ts and keycloak-fake.ts.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { constantTimeEqual } from '@portcullis/protocol';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { escape, page, redirect, send } from './fake-http.js';
import { startLoopbackServer, type ReceivedRequest } from '../user-agent/loopback-server.js';

/** The endpoints of an OpenID Connect provider. */
export type OidcFakeEndpoint = 'discovery' | 'authorize' | 'token' | 'jwks' | 'userinfo';

/** A person at the fake: the name they sign in with, and what the preset makes of them. */
export interface OidcFakeUser {
  readonly login: string;
  /** Checked when set; unset, any password. */
  readonly password?: string;
}

/** One authorization request, as the person approved it. */
export interface OidcFakeAuthorization<U extends OidcFakeUser> {
  readonly clientId: string;
  readonly redirectUri: string;
  /** The realm the request came in at (Entra's tenant segment; '' for a provider with one). */
  readonly realm: string;
  readonly params: URLSearchParams;
  readonly scopes: readonly string[];
  readonly user: U;
}

/** An error the preset answers an authorization or token request with (RFC 6749 4.1.2.1, 5.2). */
export interface OidcFakeError {
  readonly error: string;
  readonly error_description: string;
}

/** What the preset decides. */
export interface OidcFakePreset<U extends OidcFakeUser> {
  /** Which endpoint `pathname` is, and the realm in it; undefined: 404. */
  route(pathname: string): { endpoint: OidcFakeEndpoint; realm: string } | undefined;
  /** The discovery document of `realm` (OpenID Connect Discovery 3), undefined for an unknown realm (400). */
  discovery(baseUrl: string, realm: string): Record<string, unknown> | undefined;
  /**
   * What every endpoint of `realm` answers when the provider has no such realm (Okta's authorization servers,
   * Keycloak's realms: 404); undefined, the realm is served.
   */
  missingRealm?(
    realm: string,
  ): { readonly status: number; readonly body: Record<string, unknown> } | undefined;
  /** Whether `user` may sign in at `realm` (Entra: a member of that tenant); default yes. */
  admitsUser?(realm: string, user: U): boolean;
  /** An authorization request's parameter the provider refuses. */
  refuseAuthorization?(params: URLSearchParams): OidcFakeError | undefined;
  /** A token request's parameter the provider refuses. */
  refuseToken?(form: URLSearchParams): OidcFakeError | undefined;
  /** The scopes granted for `requested` (Keycloak adds its default client scopes); default, those requested. */
  grantedScopes?(requested: readonly string[]): readonly string[];
  /** Whether the code exchange comes with a refresh token. */
  issuesRefreshToken(authorization: OidcFakeAuthorization<U>): boolean;
  /**
   * Whether a refresh spends the refresh token and answers a new one (RFC 9700 4.14.2); false: the refresh token
   * stays good and the answer carries none (RFC 6749 6 leaves a new one to the server). Default true.
   */
  readonly rotatesRefreshTokens?: boolean;
  /** The ID token's claims beyond `aud`, `iat`, `exp`, `nonce` (so `iss` and `sub` are the preset's). */
  idTokenClaims(baseUrl: string, authorization: OidcFakeAuthorization<U>): Record<string, unknown>;
  /** The UserInfo answer; absent, UserInfo answers 404. */
  userinfo?(authorization: OidcFakeAuthorization<U>): Record<string, unknown>;
}

export interface OidcFakeClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
}

export interface OidcFake {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: readonly {
    method: string;
    path: string;
    headers: ReceivedRequest['headers'];
    body: string;
  }[];
  registerClient(client: { redirectUris: readonly string[] }): OidcFakeClient;
  /** The token endpoint's answers, in order (error answers too). */
  readonly tokenAnswers: readonly Record<string, unknown>[];
  /** Every code and token the fake issued. */
  issued(): ReadonlySet<string>;
  /** The authorization an access token the fake issued stands for; undefined for any other string. */
  authorizationOf(accessToken: string): OidcFakeAuthorization<OidcFakeUser> | undefined;
  /** Every refresh token issued so far stops working (`invalid_grant`), as when the person removes the app. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface Code<U extends OidcFakeUser> {
  readonly authorization: OidcFakeAuthorization<U>;
  readonly challenge: string;
  readonly nonce?: string;
  readonly expiresAt: number;
  used: boolean;
}

interface RefreshToken<U extends OidcFakeUser> {
  readonly authorization: OidcFakeAuthorization<U>;
  /** The chain of refresh tokens one code started: a spent token presented again revokes the chain. */
  readonly family: string;
  used: boolean;
}

/** A token endpoint answer: its status and its JSON body (RFC 6749 5.1, 5.2). */
type TokenAnswer = readonly [status: number, body: Record<string, unknown>];

const CODE_TTL_MS = 5 * 60_000;
const TOKEN_TTL_S = 3599;

/** Starts a fake whose wire is `preset`'s, with `users`. */
export async function startOidcFake<U extends OidcFakeUser>(
  preset: OidcFakePreset<U>,
  users: readonly U[],
): Promise<OidcFake> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomBytes(8).toString('hex');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  const clients = new Map<string, OidcFakeClient>();
  const pending = new Map<string, { realm: string; params: URLSearchParams; user?: U }>();
  const codes = new Map<string, Code<U>>();
  const accessTokens = new Map<string, OidcFakeAuthorization<U>>();
  const refreshTokens = new Map<string, RefreshToken<U>>();
  const issued = new Set<string>();
  const tokenAnswers: Record<string, unknown>[] = [];

  const server = await startLoopbackServer(async (request, response) => {
    const url = new URL(request.path, 'http://fake.invalid');
    if (url.pathname === '/fake/session' && request.method === 'POST') return signIn(request, response);
    if (url.pathname === '/fake/oauth/approve' && request.method === 'POST') return decide(request, response);
    const route = preset.route(url.pathname);
    if (!route) return send(response, 404, 'text/plain', 'Not Found');
    const json = (status: number, body: unknown) =>
      send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
    const missing = preset.missingRealm?.(route.realm);
    if (missing) return json(missing.status, missing.body);
    switch (route.endpoint) {
      case 'discovery': {
        const document = preset.discovery(baseUrl, route.realm);
        return document ? json(200, document) : json(400, { error: 'invalid_tenant' });
      }
      case 'jwks':
        return json(200, { keys: [jwk] });
      case 'authorize':
        return authorize(route.realm, url.searchParams, response);
      case 'token':
        return request.method === 'POST'
          ? token(request, response)
          : json(405, { error: 'invalid_request', error_description: 'POST only' });
      case 'userinfo': {
        const bearer = /^Bearer (.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
        const authorization = bearer ? accessTokens.get(bearer) : undefined;
        if (!authorization || !preset.userinfo) {
          response.setHeader('www-authenticate', 'Bearer error="invalid_token"');
          return json(401, { error: 'invalid_token' });
        }
        return json(200, preset.userinfo(authorization));
      }
    }
  });
  const baseUrl = server.url;

  /** The authorization request (OpenID Connect Core 3.1.2.1): checked, then the sign-in page. */
  function authorize(realm: string, params: URLSearchParams, response: ServerResponse) {
    const client = clients.get(params.get('client_id') ?? '');
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!client || !client.redirectUris.includes(redirectUri)) {
      // Never redirect to an unregistered URI (RFC 6749 4.1.2.1).
      return page(response, 400, 'Sign-in error', '<p>invalid client or redirect_uri</p>');
    }
    const refusal =
      preset.refuseAuthorization?.(params) ??
      (params.get('response_type') !== 'code'
        ? { error: 'unsupported_response_type', error_description: 'only code' }
        : params.get('code_challenge_method') !== 'S256' || !params.get('code_challenge')
          ? { error: 'invalid_request', error_description: 'PKCE S256 is required here' }
          : undefined);
    if (refusal) {
      return redirect(response, redirectUri, { ...refusal, state: params.get('state') ?? undefined });
    }
    const id = randomBytes(12).toString('hex');
    pending.set(id, { realm, params });
    page(
      response,
      200,
      'Sign in',
      `<form method="post" action="/fake/session">
         <input type="hidden" name="authorization" value="${id}">
         <label>Email or phone <input name="login"></label>
         <label>Password <input type="password" name="password"></label>
         <button type="submit">Next</button>
       </form>`,
    );
  }

  /** POST /fake/session: the person signs in, then is asked to consent. */
  function signIn(request: ReceivedRequest, response: ServerResponse) {
    const form = new URLSearchParams(request.body);
    const id = form.get('authorization') ?? '';
    const entry = pending.get(id);
    if (!entry) return page(response, 400, 'Sign-in error', '<p>This sign-in has expired.</p>');
    const user = users.find((each) => each.login === form.get('login'));
    if (
      !user ||
      (user.password !== undefined && user.password !== form.get('password')) ||
      preset.admitsUser?.(entry.realm, user) === false
    ) {
      return page(response, 401, 'Sign in', '<p>Wrong account or password.</p>');
    }
    entry.user = user;
    page(
      response,
      200,
      'Consent',
      `<p>${escape(entry.params.get('client_id') ?? '')} wants: ${escape(entry.params.get('scope') ?? '')}</p>
       <form method="post" action="/fake/oauth/approve">
         <input type="hidden" name="authorization" value="${id}">
         <button type="submit" name="authorize" value="1">Allow</button>
         <button type="submit" name="authorize" value="0">Cancel</button>
       </form>`,
    );
  }

  /** POST /fake/oauth/approve: a code, or `access_denied`, to the redirect URI. */
  function decide(request: ReceivedRequest, response: ServerResponse) {
    const form = new URLSearchParams(request.body);
    const id = form.get('authorization') ?? '';
    const entry = pending.get(id);
    pending.delete(id);
    if (!entry?.user) return page(response, 400, 'Sign-in error', '<p>This sign-in has expired.</p>');
    const { params } = entry;
    const redirectUri = params.get('redirect_uri') ?? '';
    const state = params.get('state') ?? undefined;
    if (form.get('authorize') !== '1') {
      return redirect(response, redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied the request.',
        state,
      });
    }
    const code = randomBytes(24).toString('base64url');
    issued.add(code);
    const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
    codes.set(code, {
      authorization: {
        clientId: params.get('client_id') ?? '',
        redirectUri,
        realm: entry.realm,
        params,
        scopes: preset.grantedScopes?.(requested) ?? requested,
        user: entry.user,
      },
      challenge: params.get('code_challenge') ?? '',
      ...(params.get('nonce') ? { nonce: params.get('nonce') ?? '' } : {}),
      expiresAt: Date.now() + CODE_TTL_MS,
      used: false,
    });
    redirect(response, redirectUri, { code, state });
  }

  /** The token request (RFC 6749 4.1.3, 6), answered per RFC 6749 5.1 / 5.2. */
  async function token(request: ReceivedRequest, response: ServerResponse) {
    const form = new URLSearchParams(request.body);
    const [status, body] = await answerToken(request, form);
    tokenAnswers.push(body);
    send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
  }

  async function answerToken(request: ReceivedRequest, form: URLSearchParams): Promise<TokenAnswer> {
    const refusal = preset.refuseToken?.(form);
    if (refusal) return [400, { ...refusal }];
    const client = authenticate(request, form);
    if (!client) return [401, { error: 'invalid_client', error_description: 'client authentication failed' }];
    switch (form.get('grant_type')) {
      case 'authorization_code':
        return exchangeCode(client, form);
      case 'refresh_token':
        return refresh(client, form);
      default:
        return [
          400,
          { error: 'unsupported_grant_type', error_description: 'authorization_code and refresh_token only' },
        ];
    }
  }

  /** The code, bound to the client, the redirect URI and the PKCE challenge (RFC 6749 4.1.3, RFC 7636 4.6). */
  async function exchangeCode(client: OidcFakeClient, form: URLSearchParams): Promise<TokenAnswer> {
    const code = codes.get(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    if (
      !code ||
      code.used ||
      code.expiresAt < Date.now() ||
      code.authorization.clientId !== client.clientId ||
      code.authorization.redirectUri !== form.get('redirect_uri') ||
      !constantTimeEqual(createHash('sha256').update(verifier).digest('base64url'), code.challenge)
    ) {
      return [400, { error: 'invalid_grant', error_description: 'bad code, redirect_uri or verifier' }];
    }
    code.used = true;
    const { authorization } = code;
    const accessToken = issueAccessToken(authorization);
    const now = Math.floor(Date.now() / 1000);
    const idToken = await new SignJWT({
      ...preset.idTokenClaims(baseUrl, authorization),
      ...(code.nonce ? { nonce: code.nonce } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setAudience(client.clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + TOKEN_TTL_S)
      .setJti(randomUUID())
      .sign(privateKey);
    issued.add(idToken);
    const refreshToken = preset.issuesRefreshToken(authorization)
      ? issueRefreshToken(authorization, randomUUID())
      : undefined;
    return [
      200,
      {
        access_token: accessToken,
        expires_in: TOKEN_TTL_S,
        token_type: 'Bearer',
        scope: authorization.scopes.join(' '),
        id_token: idToken,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      },
    ];
  }

  /**
   * A refresh token issued to this client and still good (RFC 6749 6), for a new access token within the scopes
   * first granted; rotating, the token is spent, and a spent one presented again revokes its whole chain
   * (RFC 9700 4.14.2).
   */
  function refresh(client: OidcFakeClient, form: URLSearchParams): TokenAnswer {
    const grant = refreshTokens.get(form.get('refresh_token') ?? '');
    if (!grant || grant.authorization.clientId !== client.clientId) {
      return [400, { error: 'invalid_grant', error_description: 'unknown or revoked refresh token' }];
    }
    if (grant.used) {
      for (const each of refreshTokens.values()) if (each.family === grant.family) each.used = true;
      return [400, { error: 'invalid_grant', error_description: 'refresh token already used' }];
    }
    const requested = form.has('scope') ? (form.get('scope') ?? '').split(' ').filter(Boolean) : undefined;
    if (requested?.some((scope) => !grant.authorization.scopes.includes(scope))) {
      return [400, { error: 'invalid_scope', error_description: 'beyond the scopes first granted' }];
    }
    const authorization = requested ? { ...grant.authorization, scopes: requested } : grant.authorization;
    const rotates = preset.rotatesRefreshTokens ?? true;
    if (rotates) grant.used = true;
    return [
      200,
      {
        access_token: issueAccessToken(authorization),
        expires_in: TOKEN_TTL_S,
        token_type: 'Bearer',
        scope: authorization.scopes.join(' '),
        // A narrowed scope holds for this access token only; the next refresh may ask the first grant again.
        ...(rotates ? { refresh_token: issueRefreshToken(grant.authorization, grant.family) } : {}),
      },
    ];
  }

  /** A new access token, good at UserInfo for `authorization`. */
  function issueAccessToken(authorization: OidcFakeAuthorization<U>): string {
    const accessToken = randomBytes(32).toString('base64url');
    accessTokens.set(accessToken, authorization);
    issued.add(accessToken);
    return accessToken;
  }

  function issueRefreshToken(authorization: OidcFakeAuthorization<U>, family: string): string {
    const refreshToken = randomBytes(32).toString('base64url');
    refreshTokens.set(refreshToken, { authorization, family, used: false });
    issued.add(refreshToken);
    return refreshToken;
  }

  /** `client_secret_basic` or `client_secret_post` (RFC 6749 2.3.1); one method per request. */
  function authenticate(request: ReceivedRequest, form: URLSearchParams): OidcFakeClient | undefined {
    const basic = /^Basic (.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    let id = form.get('client_id') ?? '';
    let secret = form.get('client_secret') ?? '';
    if (basic) {
      if (form.has('client_secret')) return undefined;
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    const client = clients.get(id);
    return client && constantTimeEqual(client.clientSecret, secret) ? client : undefined;
  }

  return {
    baseUrl,
    requests: server.requests,
    tokenAnswers,
    registerClient({ redirectUris }) {
      const client = {
        clientId: randomUUID(),
        clientSecret: randomBytes(24).toString('base64url'),
        redirectUris: [...redirectUris],
      };
      clients.set(client.clientId, client);
      return client;
    },
    issued: () => issued,
    authorizationOf: (accessToken) => accessTokens.get(accessToken),
    revokeRefreshTokens: () => refreshTokens.clear(),
    close: () => server.close(),
  };
}
