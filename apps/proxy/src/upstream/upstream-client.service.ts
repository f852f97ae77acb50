import { isLoopbackHost } from '@portcullis/protocol';
import * as oidc from 'openid-client';
import type { UpstreamOptions } from '../proxy.options.js';
import { admits } from './allowed/allowed-users.js';
import { createUpstreamProvider } from './providers/upstream-providers.js';
import type {
  ProviderIdentity,
  UpstreamProvider,
  UpstreamProviderName,
} from './providers/upstream-provider.js';
import type { UpstreamTokenSet } from './upstream-token.repository.js';
import { UpstreamError } from './upstream.error.js';

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

/**
 * Who signed in upstream, as the provider stated it (the issuer as discovered and checked, or the API base of a
 * provider without one), and the tokens the upstream issued to the proxy for them.
 */
export interface UpstreamSignIn extends ProviderIdentity, UpstreamTokenSet {
  /** The provider preset the person signed in with. */
  readonly provider: UpstreamProviderName;
}

/** What one refresh at the upstream brought: a new access token, and what changed with it. */
export interface RefreshedUpstreamTokens {
  readonly accessToken: string;
  /** The next refresh token where the upstream rotates them; absent, the one redeemed stays valid. */
  readonly refreshToken?: string;
  /** Absent: the scopes are those of the grant, unchanged (RFC 6749 5.1). */
  readonly scopes?: readonly string[];
  readonly expiresAt?: Date;
}

/**
 * The proxy as a client of the upstream authorization server, through openid-client: the authorization code flow
 * with PKCE S256, `state`, RFC 9207 `iss` and, for OpenID Connect, `nonce`, the same for every provider; where the
 * endpoints are, what the token endpoint's answer means and who signed in are the provider's
 * (`UPSTREAM_PROVIDER`, `providers/`). Every operation ends within `UPSTREAM_TIMEOUT_MS`; plain http is allowed only
 * to a loopback upstream (development; the configuration refuses any other).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
 */
export class UpstreamClient {
  readonly #upstream: UpstreamOptions;
  readonly #provider: UpstreamProvider;
  #configuration?: { promise: Promise<oidc.Configuration>; at: number };

  /** `upstream`: the sign-in provider's (`UPSTREAM_*`) or a connection's (`CONNECTIONS`). */
  constructor(upstream: UpstreamOptions) {
    this.#upstream = upstream;
    this.#provider = createUpstreamProvider(upstream);
  }

  /** The provider and the proxy's client there, as configured; the issuer's host names it on the proxy's pages. */
  get options(): UpstreamOptions {
    return this.#upstream;
  }

  /** Whether the sign-in is OpenID Connect (and so carries a `nonce` and an ID token). */
  get isOpenIdConnect(): boolean {
    return this.#provider.openIdConnect;
  }

  /** The URL to send the browser to; discovers the upstream first when needed. */
  async authorizationUrl(request: UpstreamAuthorizationRequest): Promise<URL> {
    const config = await this.#config();
    const scope = this.#upstream.scopes.join(' ');
    const extra = this.#provider.authorizationParameters();
    // OpenID Connect Core 3.1.2.1: `prompt` is a space-separated list, so the flow's (`login`, in the provider's
    // words) joins the provider's.
    const again = request.prompt === 'login' ? (this.#provider.signInAgainPrompt ?? 'login') : request.prompt;
    const prompt = [...new Set([extra['prompt'], again].filter(Boolean))].join(' ');
    return oidc.buildAuthorizationUrl(config, {
      ...extra,
      redirect_uri: this.#upstream.redirectUri,
      // RFC 6749 3.3: without scopes the server's default applies.
      ...(scope ? { scope } : {}),
      state: request.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
      code_challenge_method: 'S256',
      ...(request.nonce ? { nonce: request.nonce } : {}),
      ...(prompt ? { prompt } : {}),
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
        idTokenExpected: this.isOpenIdConnect && !this.#provider.validatesIdToken,
        ...(checks.nonce && !this.#provider.validatesIdToken ? { expectedNonce: checks.nonce } : {}),
      });
      const identity = await this.#provider.identity(
        config,
        tokens,
        checks.nonce ? { nonce: checks.nonce } : {},
      );
      const expiresIn = tokens.expiresIn();
      return {
        provider: this.#provider.name,
        ...identity,
        accessToken: tokens.access_token,
        ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
        scopes: (tokens.scope ?? this.#upstream.scopes.join(' ')).split(' ').filter(Boolean),
        ...(expiresIn === undefined ? {} : { expiresAt: new Date(Date.now() + expiresIn * 1000) }),
      };
    });
  }

  /**
   * Redeems `refreshToken` at the upstream's token endpoint (RFC 6749 6) for a new access token, and the new refresh
   * token where the upstream rotates them; an ID token in the answer is checked as openid-client checks any.
   *
   * @throws UpstreamError; `isGrantRefused` tells a refresh token the upstream no longer honours
   */
  async refresh(refreshToken: string): Promise<RefreshedUpstreamTokens> {
    const config = await this.#config();
    return this.#withDeadline('token refresh', async () => {
      const tokens = await oidc.refreshTokenGrant(config, refreshToken);
      const expiresIn = tokens.expiresIn();
      return {
        accessToken: tokens.access_token,
        ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
        ...(tokens.scope === undefined ? {} : { scopes: tokens.scope.split(' ').filter(Boolean) }),
        ...(expiresIn === undefined ? {} : { expiresAt: new Date(Date.now() + expiresIn * 1000) }),
      };
    });
  }

  /**
   * Ends the grant behind `tokens` at the provider, so that it forgets the proxy's access for the person: the
   * provider's own API (GitHub), else RFC 7009 revocation of the refresh token (which ends the grant's access tokens
   * where the server ties them, 2.1) and of the access token; `unsupported` when the provider offers neither (Entra
   * publishes no revocation endpoint). Within `UPSTREAM_TIMEOUT_MS`.
   *
   * @throws UpstreamError when the provider refuses or cannot be reached
   * @see https://www.rfc-editor.org/rfc/rfc7009#section-2
   */
  async revoke(tokens: {
    readonly accessToken: string;
    readonly refreshToken?: string;
  }): Promise<'revoked' | 'unsupported'> {
    const config = await this.#config();
    const provider = this.#provider;
    const { clientId, clientSecret } = this.#upstream;
    return this.#withDeadline('revocation', async () => {
      if (provider.revoke) {
        return provider.revoke({ clientId, ...(clientSecret ? { clientSecret } : {}) }, tokens);
      }
      if (!config.serverMetadata().revocation_endpoint) return 'unsupported';
      if (tokens.refreshToken) {
        await oidc.tokenRevocation(config, tokens.refreshToken, { token_type_hint: 'refresh_token' });
      }
      await oidc.tokenRevocation(config, tokens.accessToken, { token_type_hint: 'access_token' });
      return 'revoked';
    });
  }

  /**
   * Whether `UPSTREAM_ALLOWED` admits the person of `signIn` (everyone, when it is unset). Memberships are asked of
   * the provider with the person's upstream access token, within `UPSTREAM_TIMEOUT_MS`.
   *
   * @throws UpstreamError when the provider cannot answer
   */
  async admits(signIn: UpstreamSignIn): Promise<boolean> {
    const rules = this.#upstream.allowed;
    if (!rules) return true;
    const config = await this.#config();
    const provider = this.#provider;
    return this.#withDeadline('allowed users', () =>
      admits(rules, signIn, async (group) =>
        provider.isMember
          ? provider.isMember(config, { accessToken: signIn.accessToken }, signIn, group)
          : false,
      ),
    );
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

  /**
   * The provider's metadata as openid-client's configuration: the proxy's client and its authentication, the
   * deadline, plain http only for an upstream on loopback (the configuration refuses it elsewhere), and the
   * provider's reading of its token endpoint's answer.
   */
  async #discover(): Promise<oidc.Configuration> {
    const { clientId, clientSecret, timeoutMs } = this.#upstream;
    const metadata = await this.#provider.metadata();
    const config = new oidc.Configuration(
      metadata,
      clientId,
      clientSecret,
      clientAuthentication(metadata, clientSecret),
    );
    config.timeout = timeoutMs / 1000;
    const issuer = new URL(metadata.issuer);
    if (issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)) oidc.allowInsecureRequests(config);
    const tokenResponse = this.#provider.tokenResponse?.bind(this.#provider);
    if (tokenResponse && metadata.token_endpoint) {
      const tokenEndpoint = new URL(metadata.token_endpoint).href;
      config[oidc.customFetch] = async (url, options) => {
        const response = await fetch(url, options as RequestInit);
        return new URL(url).href === tokenEndpoint ? tokenResponse(response) : response;
      };
    }
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
