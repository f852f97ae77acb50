import { Inject, Injectable, Logger } from '@nestjs/common';
import type { UserProfile } from '@portcullis/authorization';
import { isLoopbackHost } from '@portcullis/protocol';
import * as oidc from 'openid-client';
import { PROXY_OPTIONS, type ProxyOptions, type UpstreamOptions } from '../proxy.options.js';
import { UpstreamError } from './upstream.error.js';
import { firstString, statedProfile, type StatedClaims } from './upstream-profile.js';

/** Discovered metadata is used this long before it is discovered again. */
const METADATA_MAX_AGE_MS = 60 * 60_000;

/** The parameters of one upstream authorization request the proxy sends the browser with. */
export interface UpstreamAuthorizationRequest {
  readonly state: string;
  readonly codeVerifier: string;
  /** Only for an OpenID Connect sign-in (`openid` among the upstream scopes). */
  readonly nonce?: string;
  /** `login` forces the user to sign in again upstream (OIDC Core 3.1.2.1). */
  readonly prompt?: string;
}

/** Who signed in upstream, and the tokens the upstream issued to the proxy for them. */
export interface UpstreamSignIn {
  /** The upstream's issuer identifier, as discovered and checked. */
  readonly issuer: string;
  readonly subject: string;
  /** A name to show and log: `preferred_username`, `email` or `name`, else the subject. */
  readonly displayName: string;
  /**
   * The person's `name`, `email` and `email_verified` as the upstream stated them (ID token and UserInfo), for the
   * proxy's own `profile` and `email` claims; a member the upstream did not state is absent.
   */
  readonly profile: UserProfile;
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: Date;
}

/**
 * The proxy as a client of the upstream authorization server, through openid-client: discovery (RFC 8414 / OIDC
 * Discovery, the metadata `issuer` checked against the configured one), the authorization code flow with PKCE
 * S256, `state`, RFC 9207 `iss` and, for OpenID Connect, `nonce`, and UserInfo. Every operation ends within
 * `UPSTREAM_TIMEOUT_MS`; plain http is allowed only to a loopback upstream (development).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
 */
@Injectable()
export class UpstreamClient {
  readonly #logger = new Logger('Upstream');
  readonly #upstream: UpstreamOptions;
  #configuration?: { promise: Promise<oidc.Configuration>; at: number };

  constructor(@Inject(PROXY_OPTIONS) options: ProxyOptions) {
    this.#upstream = options.upstream;
  }

  /** Whether the sign-in is OpenID Connect (and so carries a `nonce` and an ID token). */
  get isOpenIdConnect(): boolean {
    return this.#upstream.scopes.includes('openid');
  }

  /** The URL to send the browser to; discovers the upstream first when needed. */
  async authorizationUrl(request: UpstreamAuthorizationRequest): Promise<URL> {
    const config = await this.#config();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.#upstream.redirectUri,
      scope: this.#upstream.scopes.join(' '),
      state: request.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
      code_challenge_method: 'S256',
      ...(request.nonce ? { nonce: request.nonce } : {}),
      ...(request.prompt ? { prompt: request.prompt } : {}),
    });
  }

  /**
   * Checks the authorization response the browser brought back (`state`, `iss`, or the error it carries) and
   * redeems its code with the PKCE verifier; for OpenID Connect, validates the ID token with its `nonce`.
   *
   * @throws UpstreamError
   */
  async signIn(
    callbackQuery: URLSearchParams,
    checks: { state: string; codeVerifier: string; nonce?: string },
  ): Promise<UpstreamSignIn> {
    const config = await this.#config();
    const current = new URL(this.#upstream.redirectUri);
    current.search = callbackQuery.toString();
    return this.#withDeadline('code exchange', async () => {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        expectedState: checks.state,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: this.isOpenIdConnect,
        ...(checks.nonce ? { expectedNonce: checks.nonce } : {}),
      });
      const claims = tokens.claims();
      const userinfo = await this.#userinfo(config, tokens.access_token, claims?.sub);
      const subject = claims?.sub ?? userinfo?.sub;
      if (!subject) throw new UpstreamError('rejected', 'the upstream did not say who signed in');
      // Two statements about the person, UserInfo's first (the fresher): each claim is read from one of them.
      const statements = [userinfo, claims].filter((each) => each !== undefined) as StatedClaims[];
      const expiresIn = tokens.expiresIn();
      return {
        issuer: config.serverMetadata().issuer,
        subject,
        displayName: firstString(statements, ['preferred_username', 'email', 'name']) ?? subject,
        profile: statedProfile(statements),
        accessToken: tokens.access_token,
        ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
        scopes: (tokens.scope ?? this.#upstream.scopes.join(' ')).split(' ').filter(Boolean),
        ...(expiresIn === undefined ? {} : { expiresAt: new Date(Date.now() + expiresIn * 1000) }),
      };
    });
  }

  /**
   * UserInfo with the upstream access token, presented to the upstream that issued it and nowhere else. Required
   * without an ID token (plain OAuth: the only way to learn the subject); for OpenID Connect only a name to show,
   * so its failure there costs nothing.
   */
  async #userinfo(
    config: oidc.Configuration,
    accessToken: string,
    subject: string | undefined,
  ): Promise<oidc.UserInfoResponse | undefined> {
    if (!config.serverMetadata().userinfo_endpoint) return undefined;
    try {
      return await oidc.fetchUserInfo(config, accessToken, subject ?? oidc.skipSubjectCheck);
    } catch (error) {
      if (!subject) throw error;
      this.#logger.warn({ err: error }, 'upstream UserInfo failed; signing in with the ID token alone');
      return undefined;
    }
  }

  #config(): Promise<oidc.Configuration> {
    const cached = this.#configuration;
    if (cached && Date.now() - cached.at < METADATA_MAX_AGE_MS) return cached.promise;
    const promise = this.#withDeadline('discovery', () => this.#discover());
    this.#configuration = { promise, at: Date.now() };
    // A failed discovery is not cached: the next sign-in tries again.
    promise.catch(() => {
      if (this.#configuration?.promise === promise) this.#configuration = undefined;
    });
    return promise;
  }

  async #discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret, timeoutMs } = this.#upstream;
    const insecure = new URL(issuer).protocol === 'http:' && isLoopbackHost(new URL(issuer).hostname);
    const discovered = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), {
      // OpenID Connect Discovery for an OIDC sign-in, RFC 8414 metadata for plain OAuth.
      algorithm: this.isOpenIdConnect ? 'oidc' : 'oauth2',
      timeout: timeoutMs / 1000,
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
    const metadata = discovered.serverMetadata();
    if (!metadata.code_challenge_methods_supported?.includes('S256')) {
      // Without S256 in code_challenge_methods_supported a client must not proceed: MCP "Authorization Code
      // Protection", https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
      // (#authorization-code-protection), and RFC 8414 2 (the metadata's code_challenge_methods_supported).
      throw new UpstreamError('rejected', 'the upstream does not support PKCE S256');
    }
    const config = new oidc.Configuration(
      metadata,
      clientId,
      clientSecret,
      clientAuthentication(metadata, clientSecret),
    );
    config.timeout = timeoutMs / 1000;
    if (insecure) oidc.allowInsecureRequests(config);
    return config;
  }

  /** Runs `operation`, failing with `timeout` once `UPSTREAM_TIMEOUT_MS` has passed, whatever it waits on. */
  async #withDeadline<T>(operation: string, run: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new UpstreamError('timeout', `${operation}: the upstream did not answer in time`)),
        this.#upstream.timeoutMs,
      );
    });
    try {
      return await Promise.race([run(), deadline]);
    } catch (error) {
      throw UpstreamError.from(error, operation);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * `client_secret_basic` where the upstream supports it (RFC 8414 2: the default when it says nothing), else
 * `client_secret_post`; `none` for a public client.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1
 */
function clientAuthentication(metadata: oidc.ServerMetadata, secret: string | undefined): oidc.ClientAuth {
  if (!secret) return oidc.None();
  const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  return supported.includes('client_secret_basic') || !supported.includes('client_secret_post')
    ? oidc.ClientSecretBasic(secret)
    : oidc.ClientSecretPost(secret);
}
