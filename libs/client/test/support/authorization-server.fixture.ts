// An OAuth 2.1 authorization server on loopback that approves every request without a person, with exact wire
// behaviour (RFC 8414 metadata, PKCE S256, single-use codes bound to redirect URI, resource and challenge, rotating
// refresh tokens, RFC 7591 registration), DPoP (RFC 9449) when asked, and switches for the misbehaviours the client
// must refuse.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { DpopChecker, type DpopServerOptions } from './dpop.fixture.js';
import { sendJson, startServer, type RunningServer } from './http-server.js';

export interface FakeAuthorizationServerOptions {
  /** Path of the issuer identifier, e.g. `/tenant1`. */
  readonly issuerPath?: string;
  /** Where the metadata is served: RFC 8414 path-inserted (default), OIDC path-inserted, or OIDC path-appended. */
  readonly metadataAt?: 'oauth' | 'openid-inserted' | 'openid-appended';
  /** Rewrites the metadata document before it is served. */
  readonly metadata?: (document: Record<string, unknown>) => Record<string, unknown>;
  /** What the authorization response carries as `iss`. */
  readonly issInRedirect?: 'correct' | 'wrong' | 'missing' | 'trailing-slash';
  /** Answer the authorization request with this error instead of a code. */
  readonly authorizationError?: string;
  readonly registration?: boolean;
  readonly scopesSupported?: readonly string[];
  readonly accessTokenTtlSeconds?: number;
  /** The `Cache-Control` of the metadata document (none by default). */
  readonly metadataCacheControl?: string;
  readonly issueRefreshTokens?: boolean;
  /** `invalid_grant` for every refresh request. */
  readonly rejectRefresh?: boolean;
  /** Registration answers with this secret and `client_secret_basic`. */
  readonly registerConfidential?: boolean;
  /** Scopes this user may never have: left out of every grant, as a server does for a user without the right. */
  readonly withheldScopes?: readonly string[];
  /**
   * Offer DPoP (RFC 9449): `dpop_signing_alg_values_supported`, proofs checked at the token endpoint, tokens bound
   * to the proof's key (`token_type` `DPoP`), codes bound to `dpop_jkt`, bound refresh tokens redeemed only with a
   * proof of their key. `issueBearer`: check proofs but issue unbound Bearer tokens (RFC 9449 5.1 allows it).
   * `required`: refuse every token request without a proof (`invalid_dpop_proof`), as a server that requires DPoP
   * of every client does (RFC 9449 5.2 for all).
   */
  readonly dpop?: DpopServerOptions & { readonly issueBearer?: boolean; readonly required?: boolean };
  /** Offer the client credentials grant (RFC 6749 4.4) to clients authenticated with HTTP Basic. */
  readonly clientCredentials?: boolean;
}

export interface IssuedToken {
  readonly scope: readonly string[];
  readonly resource: string | undefined;
  readonly clientId: string;
  readonly expiresAt: number;
  /** The thumbprint of the key the token is bound to (`cnf.jkt`, RFC 9449 6). */
  readonly jkt?: string;
}

interface PendingCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly scope: readonly string[];
  readonly resource: string | undefined;
  readonly dpopJkt: string | undefined;
}

export interface TokenRequestRecord {
  readonly params: URLSearchParams;
  readonly authorization: string | undefined;
  /** The `DPoP` proof header. */
  readonly dpop: string | undefined;
  readonly status: number;
}

export class FakeAuthorizationServer {
  readonly metadataRequests: string[] = [];
  readonly authorizationRequests: URLSearchParams[] = [];
  readonly tokenRequests: TokenRequestRecord[] = [];
  readonly registrations: Record<string, unknown>[] = [];
  /** Client IDs the server no longer knows (a registration it deleted): refused at the token endpoint. */
  readonly #forgotten = new Set<string>();
  readonly #codes = new Map<string, PendingCode>();
  readonly #accessTokens = new Map<string, IssuedToken>();
  readonly #refreshTokens = new Map<string, { token: IssuedToken; used: boolean }>();
  /** The token endpoint's DPoP checks, when it offers DPoP. */
  readonly dpop: DpopChecker | undefined;
  #server: RunningServer | undefined;

  private constructor(readonly options: FakeAuthorizationServerOptions) {
    this.dpop = options.dpop === undefined ? undefined : new DpopChecker(options.dpop);
  }

  static async start(options: FakeAuthorizationServerOptions = {}): Promise<FakeAuthorizationServer> {
    const as = new FakeAuthorizationServer(options);
    as.#server = await startServer(async (request, response, body) => {
      const url = new URL(request.url ?? '/', as.origin);
      if (request.method === 'GET' && url.pathname === as.metadataPath) {
        as.metadataRequests.push(url.pathname);
        return sendJson(
          response,
          200,
          as.#metadata(),
          options.metadataCacheControl === undefined ? {} : { 'cache-control': options.metadataCacheControl },
        );
      }
      if (request.method === 'GET' && url.pathname.includes('/.well-known/')) {
        as.metadataRequests.push(url.pathname);
        return sendJson(response, 404, { error: 'not_found' });
      }
      if (request.method === 'GET' && url.pathname === `${as.issuerPath}/authorize`) {
        as.authorizationRequests.push(url.searchParams);
        response.writeHead(302, { location: as.#authorize(url.searchParams) }).end();
        return;
      }
      if (request.method === 'POST' && url.pathname === `${as.issuerPath}/token`) {
        const params = new URLSearchParams(body);
        const [status, json, headers] = await as.#token(params, request.headers);
        const dpop = request.headers['dpop'];
        as.tokenRequests.push({
          params,
          authorization: request.headers.authorization,
          dpop: Array.isArray(dpop) ? dpop.join(', ') : dpop,
          status,
        });
        return sendJson(response, status, json, headers);
      }
      if (request.method === 'POST' && url.pathname === `${as.issuerPath}/register`) {
        const metadata = JSON.parse(body) as Record<string, unknown>;
        as.registrations.push(metadata);
        const clientId = `client-${as.registrations.length}-${randomBytes(4).toString('hex')}`;
        return sendJson(response, 201, {
          ...metadata,
          client_id: clientId,
          ...(options.registerConfidential
            ? {
                client_secret: `secret-of-${clientId}`,
                client_secret_expires_at: 0,
                token_endpoint_auth_method: 'client_secret_basic',
              }
            : metadata['token_endpoint_auth_method'] === 'private_key_jwt'
              ? { token_endpoint_auth_method: 'private_key_jwt' }
              : { token_endpoint_auth_method: 'none' }),
        });
      }
      sendJson(response, 404, { error: 'not_found' });
    });
    return as;
  }

  get origin(): string {
    return (this.#server as RunningServer).url;
  }

  get issuerPath(): string {
    return this.options.issuerPath ?? '';
  }

  get issuer(): string {
    return `${this.origin}${this.issuerPath}`;
  }

  get metadataPath(): string {
    switch (this.options.metadataAt ?? 'oauth') {
      case 'oauth':
        return `/.well-known/oauth-authorization-server${this.issuerPath}`;
      case 'openid-inserted':
        return `/.well-known/openid-configuration${this.issuerPath}`;
      case 'openid-appended':
        return `${this.issuerPath}/.well-known/openid-configuration`;
    }
  }

  /** Counts token requests by grant type. */
  grants(grantType: string): TokenRequestRecord[] {
    return this.tokenRequests.filter((request) => request.params.get('grant_type') === grantType);
  }

  /** The token's grant, when it is a live access token. */
  verify(accessToken: string, now = Date.now()): IssuedToken | undefined {
    const token = this.#accessTokens.get(accessToken);
    return token !== undefined && token.expiresAt > now ? token : undefined;
  }

  /** Expires every access token issued so far. */
  expireAccessTokens(): void {
    for (const [value, token] of this.#accessTokens)
      this.#accessTokens.set(value, { ...token, expiresAt: 0 });
  }

  /** Revokes every refresh token issued so far, as a server does after detecting reuse. */
  revokeRefreshTokens(): void {
    for (const entry of this.#refreshTokens.values()) entry.used = true;
  }

  close(): Promise<void> {
    return (this.#server as RunningServer).close();
  }

  #metadata(): Record<string, unknown> {
    const document: Record<string, unknown> = {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      ...(this.options.registration === false ? {} : { registration_endpoint: `${this.issuer}/register` }),
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      authorization_response_iss_parameter_supported: true,
      ...(this.options.dpop === undefined ? {} : { dpop_signing_alg_values_supported: ['ES256', 'EdDSA'] }),
      ...(this.options.clientCredentials
        ? { grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'] }
        : {}),
      ...(this.options.scopesSupported === undefined
        ? {}
        : { scopes_supported: this.options.scopesSupported }),
    };
    return this.options.metadata?.(document) ?? document;
  }

  /** Deletes a client, as a server does with a dynamic registration left unused (RFC 7592). */
  forgetClient(clientId: string): void {
    this.#forgotten.add(clientId);
  }

  #authorize(params: URLSearchParams): string {
    const redirect = new URL(params.get('redirect_uri') as string);
    const state = params.get('state');
    if (state !== null) redirect.searchParams.set('state', state);
    const iss = {
      correct: this.issuer,
      wrong: 'https://evil.example',
      'trailing-slash': `${this.issuer}/`,
      missing: undefined,
    }[this.options.issInRedirect ?? 'correct'];
    if (iss !== undefined) redirect.searchParams.set('iss', iss);
    if (this.options.authorizationError !== undefined) {
      redirect.searchParams.set('error', this.options.authorizationError);
      redirect.searchParams.set('error_description', 'described by the server');
      return redirect.href;
    }
    const code = randomBytes(16).toString('base64url');
    this.#codes.set(code, {
      clientId: params.get('client_id') as string,
      redirectUri: params.get('redirect_uri') as string,
      challenge: params.get('code_challenge') as string,
      scope: (params.get('scope') ?? '')
        .split(' ')
        .filter((scope) => scope !== '' && !(this.options.withheldScopes ?? []).includes(scope)),
      resource: params.get('resource') ?? undefined,
      dpopJkt: params.get('dpop_jkt') ?? undefined,
    });
    redirect.searchParams.set('code', code);
    return redirect.href;
  }

  async #token(
    params: URLSearchParams,
    headers: IncomingHttpHeaders,
  ): Promise<[number, Record<string, unknown>, Record<string, string>?]> {
    const clientId = params.get('client_id') ?? basicClientId(headers.authorization);
    if (clientId !== undefined && this.#forgotten.has(clientId)) return [401, { error: 'invalid_client' }];
    // RFC 9449 5: the proof is checked before anything single-use (the code, the refresh token) is consumed.
    let jkt: string | undefined;
    if (this.dpop !== undefined && DpopChecker.carriesProof(headers)) {
      const outcome = await this.dpop.check(headers, { method: 'POST', url: `${this.issuer}/token` });
      if (!outcome.ok) {
        const { error } = outcome;
        return [
          error.status,
          { error: error.code, error_description: error.description },
          { ...error.headers },
        ];
      }
      jkt = outcome.jkt;
    } else if (this.options.dpop?.required === true) {
      return [400, { error: 'invalid_dpop_proof', error_description: 'a DPoP proof is required' }];
    }
    const bind = this.options.dpop?.issueBearer ? undefined : jkt;
    if (params.get('grant_type') === 'authorization_code') {
      const code = this.#codes.get(params.get('code') ?? '');
      this.#codes.delete(params.get('code') ?? '');
      const verifier = params.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        code === undefined ||
        code.clientId !== clientId ||
        code.redirectUri !== params.get('redirect_uri') ||
        code.challenge !== challenge ||
        code.resource !== (params.get('resource') ?? undefined) ||
        (code.dpopJkt !== undefined && code.dpopJkt !== jkt)
      ) {
        return [400, { error: 'invalid_grant' }];
      }
      return [
        200,
        this.#issue({ scope: code.scope, resource: code.resource, clientId, expiresAt: 0, jkt: bind }),
      ];
    }
    if (params.get('grant_type') === 'refresh_token') {
      const entry = this.#refreshTokens.get(params.get('refresh_token') ?? '');
      if (
        this.options.rejectRefresh ||
        entry === undefined ||
        entry.used ||
        entry.token.clientId !== clientId ||
        // RFC 9449 5.0: a public client's bound refresh token is redeemed only with a proof of its key.
        (entry.token.jkt !== undefined && entry.token.jkt !== jkt)
      ) {
        return [400, { error: 'invalid_grant' }];
      }
      entry.used = true;
      return [200, this.#issue({ ...entry.token, resource: params.get('resource') ?? undefined, jkt: bind })];
    }
    if (params.get('grant_type') === 'client_credentials' && this.options.clientCredentials) {
      if (clientId === undefined) return [401, { error: 'invalid_client' }];
      return [
        200,
        this.#issue(
          {
            scope: (params.get('scope') ?? '').split(' ').filter((scope) => scope !== ''),
            resource: params.get('resource') ?? undefined,
            clientId,
            expiresAt: 0,
            jkt: bind,
          },
          false,
        ),
      ];
    }
    return [400, { error: 'unsupported_grant_type' }];
  }

  #issue(grant: IssuedToken, withRefreshToken = true): Record<string, unknown> {
    const ttl = this.options.accessTokenTtlSeconds ?? 3600;
    const { jkt, ...unbound } = grant;
    const token: IssuedToken = {
      ...unbound,
      ...(jkt === undefined ? {} : { jkt }),
      expiresAt: Date.now() + ttl * 1000,
    };
    const accessToken = `at-${randomBytes(12).toString('hex')}`;
    this.#accessTokens.set(accessToken, token);
    const refreshToken =
      this.options.issueRefreshTokens === false || !withRefreshToken
        ? undefined
        : `rt-${randomBytes(12).toString('hex')}`;
    if (refreshToken !== undefined) this.#refreshTokens.set(refreshToken, { token, used: false });
    return {
      access_token: accessToken,
      token_type: token.jkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: ttl,
      ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
      ...(token.scope.length === 0 ? {} : { scope: token.scope.join(' ') }),
    };
  }
}

function basicClientId(authorization: string | undefined): string | undefined {
  if (authorization?.startsWith('Basic ') !== true) return undefined;
  const [id] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
  return id === undefined ? undefined : decodeURIComponent(id.replace(/\+/g, ' '));
}
