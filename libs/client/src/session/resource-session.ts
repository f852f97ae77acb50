/**
 * The tokens of one resource and how they are renewed.
 *
 * Rules kept here:
 * - RFC 6749 Section 6 and MCP 2026-07-28 "Refresh Tokens": refresh shortly before expiry, or on a 401
 *   (`invalid_token`), with `resource`; one renewal (refresh or authorization) in flight per resource however many
 *   requests need it; the rotated refresh token is persisted before the new access token is handed out;
 *   `invalid_grant` starts a new authorization, and so does `invalid_client` (RFC 6749 Section 5.2: the server no
 *   longer knows the client, e.g. a dynamic registration it deleted), which also drops the stored registration so the
 *   authorization registers again. Processes sharing a store refresh in turns (`TokenStore.exclusive`),
 *   each reading the store again in its turn, so one refresh token is never presented twice (RFC 9700 Section
 *   4.14.2: a second presentation is reuse, which revokes the family).
 * - MCP 2026-07-28 "Token Handling" and "Authorization Server Binding": on a 401 the resource metadata is read
 *   again; when it now names another authorization server, the old tokens are not refreshed there but a new
 *   authorization runs at the new server (which registers afresh).
 * - MCP 2026-07-28 "Step-Up Authorization Flow": on `insufficient_scope` (feature `step-up-authorization`) a
 *   re-authorization asks for the union of the scopes requested before and the challenged ones; without a `scope`
 *   in the challenge there is nothing to step up to.
 * - RFC 9449 Section 5: a refresh of a token set with a proof key proves possession of that same key (a public
 *   client's refresh token is bound to it), and the refreshed tokens keep it. A step-up is a new authorization with
 *   a new key. DPoP-bound tokens are never refreshed without their proof: with proof of possession switched off they
 *   count as dead, and a new authorization replaces them.
 */
import { privateKeyFor } from '../client-id/client-id.resolver.js';
import type { BearerChallenge } from '../discovery/bearer-challenge.js';
import { isPortcullisError, PortcullisError } from '../errors/portcullis-error.js';
import {
  authorize,
  clientForTokens,
  discover,
  saveAndRetire,
  type Discovery,
  type FlowContext,
} from '../flow/authorization-flow.js';
import { openIdClientConfiguration } from '../flow/openid-client.configuration.js';
import { refreshTokenSet, toStoredTokenSet } from '../flow/token.endpoint.js';
import { report } from '../progress.js';
import { isKeyBound } from '../proof/proof-of-possession.js';
import { sameKey, type StoredTokenSet } from '../store/token-store.js';

/**
 * Renews and hands out the tokens of one resource; every renewal goes through one in-flight promise.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 */
export class ResourceSession {
  readonly #context: FlowContext;
  readonly #refreshSkewMs: number;
  #inflight: Promise<StoredTokenSet | undefined> | undefined;

  constructor(context: FlowContext, refreshSkewMs: number) {
    this.#context = context;
    this.#refreshSkewMs = refreshSkewMs;
  }

  /** The newest stored token set for the resource, without renewing it. */
  async stored(): Promise<StoredTokenSet | undefined> {
    return (await this.#context.store.findTokens(this.#context.resource))[0];
  }

  /** The tokens to send now: refreshed first when they expire within the skew and can be refreshed. */
  async current(): Promise<StoredTokenSet | undefined> {
    if (this.#inflight !== undefined) return this.#settled(this.#inflight);
    const tokens = await this.stored();
    if (tokens === undefined || !this.#expiresSoon(tokens) || tokens.refreshToken === undefined)
      return tokens;
    return this.#settled(
      this.#renew(tokens.accessToken, async () => {
        report(
          this.#context.onProgress,
          'refresh',
          `Refreshing the access token at ${tokens.issuer} before it expires`,
        );
        try {
          return await this.#refreshShared(tokens);
        } catch (error) {
          // A dead refresh token is not an error for the request: it goes out without a token and the 401 that
          // follows starts a new authorization with the resource's own challenge.
          if (isPortcullisError(error, 'refresh_rejected')) return undefined;
          throw error;
        }
      }),
    );
  }

  /**
   * After a 401 to a request that carried `staleAccessToken` (or none): a refresh at the same issuer when allowed
   * and possible, else a new authorization.
   */
  async unauthorized(
    staleAccessToken: string | undefined,
    challenge: BearerChallenge | undefined,
    allowRefresh: boolean,
  ): Promise<StoredTokenSet> {
    const renewal = async (): Promise<StoredTokenSet> => {
      report(
        this.#context.onProgress,
        'challenge',
        `${this.#context.resource} asked for authorization (401)`,
      );
      const discovery = await discover(this.#context, challenge);
      const tokens = await this.stored();
      if (allowRefresh && tokens?.refreshToken !== undefined && tokens.issuer === discovery.server.issuer) {
        report(this.#context.onProgress, 'refresh', `Refreshing the access token at ${tokens.issuer}`);
        try {
          const refreshed = await this.#refreshShared(tokens);
          if (refreshed !== undefined) return refreshed;
        } catch (error) {
          if (!isPortcullisError(error, 'refresh_rejected')) throw error;
          report(this.#context.onProgress, 'refresh', 'The refresh token was rejected; authorizing again');
        }
      }
      return authorize(this.#context, discovery, { kind: 'initial', challenge });
    };
    // Joining a proactive refresh that ended without tokens leaves nothing to use: then renew ourselves.
    return (
      (await this.#renew(staleAccessToken, renewal)) ??
      (await this.#renew(staleAccessToken, renewal)) ??
      renewal()
    );
  }

  /**
   * After a 403 `insufficient_scope`: a step-up authorization, or `undefined` when the revision has no step-up or
   * the challenge names no scope.
   */
  async insufficientScope(
    staleAccessToken: string | undefined,
    challenge: BearerChallenge,
  ): Promise<StoredTokenSet | undefined> {
    const challengeScope = challenge.scope;
    if (
      !this.#context.revision.supports('step-up-authorization') ||
      challengeScope === undefined ||
      challengeScope.length === 0
    ) {
      return undefined;
    }
    return this.#renew(staleAccessToken, async () => {
      report(
        this.#context.onProgress,
        'challenge',
        `${this.#context.resource} needs more scope (403: ${challengeScope.join(' ')})`,
      );
      const discovery: Discovery = await discover(this.#context, challenge);
      return authorize(this.#context, discovery, {
        kind: 'step-up',
        challengeScope,
        previous: await this.stored(),
      });
    });
  }

  /** Deletes every stored token set of the resource. */
  async signOut(): Promise<number> {
    return this.#context.store.deleteTokens({ resource: this.#context.resource });
  }

  /**
   * Runs `renewal` unless one is already in flight (then waits for it), or unless the stored token is no longer
   * the stale one (another request renewed it meanwhile; then that one is used).
   */
  async #renew(
    staleAccessToken: string | undefined,
    renewal: () => Promise<StoredTokenSet | undefined>,
  ): Promise<StoredTokenSet | undefined> {
    if (this.#inflight !== undefined) return this.#inflight;
    const inflight = (async () => {
      const stored = await this.stored();
      if (stored !== undefined && stored.accessToken !== staleAccessToken) return stored;
      return renewal();
    })();
    this.#inflight = inflight;
    try {
      return await inflight;
    } finally {
      if (this.#inflight === inflight) this.#inflight = undefined;
    }
  }

  /** Waits for an in-flight renewal; whatever it ends with, the caller gets the then-stored tokens. */
  async #settled(inflight: Promise<StoredTokenSet | undefined>): Promise<StoredTokenSet | undefined> {
    try {
      return await inflight;
    } catch {
      return this.stored();
    }
  }

  /**
   * Refreshes `tokens` in the store's exclusive turn, so processes sharing the store present a refresh token once
   * between them: once the turn is ours the store is read again, and when another process renewed the tokens
   * meanwhile those are used, or when it dropped them (their refresh token was rejected) nothing is (undefined).
   */
  async #refreshShared(tokens: StoredTokenSet): Promise<StoredTokenSet | undefined> {
    const { store } = this.#context;
    const exclusive =
      store.exclusive === undefined ? <T>(fn: () => Promise<T>) => fn() : store.exclusive.bind(store);
    return exclusive(async () => {
      const latest = (await store.findTokens(this.#context.resource)).find((entry) => sameKey(entry, tokens));
      if (latest === undefined) return undefined;
      if (latest.accessToken !== tokens.accessToken || latest.refreshToken !== tokens.refreshToken) {
        report(this.#context.onProgress, 'refresh', 'Using the tokens another process refreshed meanwhile');
        return latest;
      }
      return this.#refresh(latest);
    });
  }

  async #refresh(tokens: StoredTokenSet): Promise<StoredTokenSet> {
    const server = await this.#context.discoverAuthorizationServer(tokens.issuer);
    const client = await clientForTokens(this.#context, tokens);
    const pop = this.#context.proofOfPossession;
    const proof =
      pop !== undefined && tokens.proofKey !== undefined ? { pop, key: tokens.proofKey } : undefined;
    const config = openIdClientConfiguration({
      server,
      client,
      fetch: this.#context.fetch,
      privateKey: privateKeyFor(this.#context, client),
      proof,
    });
    let response;
    try {
      // Tokens bound to a key this fetch cannot prove (proof of possession switched off since): only a new
      // authorization helps, so they are treated like a dead refresh token.
      if (isKeyBound(tokens) && proof === undefined) {
        throw new PortcullisError(
          'refresh_rejected',
          `The tokens from ${tokens.issuer} are bound to a ${tokens.tokenType} key and proof of possession is off; a new authorization is needed.`,
          { issuer: tokens.issuer },
        );
      }
      response = await refreshTokenSet(config, tokens, proof);
    } catch (error) {
      if (isPortcullisError(error, 'refresh_rejected')) {
        await this.#context.store.deleteTokens({
          issuer: tokens.issuer,
          resource: tokens.resource,
          clientId: tokens.clientId,
        });
      }
      if (isPortcullisError(error, 'token_request_failed') && error.details['error'] === 'invalid_client') {
        throw await this.#clientGone(tokens, error);
      }
      throw error;
    }
    const refreshed = toStoredTokenSet(response, {
      key: { issuer: tokens.issuer, resource: tokens.resource, clientId: tokens.clientId },
      resourceIndicator: tokens.resourceIndicator,
      requestedScope: tokens.requestedScope,
      now: this.#context.now(),
      previous: tokens,
      proofKey: proof?.key,
    });
    // Persisted before it is returned: the rotated refresh token must survive a crash right after this point.
    await saveAndRetire(this.#context.store, refreshed);
    report(
      this.#context.onProgress,
      'refresh',
      `Access token refreshed${response.refresh_token === undefined ? '' : ' (refresh token rotated and stored)'}`,
    );
    return refreshed;
  }

  /**
   * RFC 6749 Section 5.2 `invalid_client` on a refresh: the server no longer knows the client (a dynamic registration
   * it deleted after a long idle time, as servers do, RFC 7592) or no longer accepts how it authenticates. Its tokens
   * are dead, and a registration kept for it would only be refused again: both are dropped, and the refusal reads as
   * a dead refresh token, so the request goes on to a new authorization, which registers the client again.
   */
  async #clientGone(tokens: StoredTokenSet, cause: PortcullisError): Promise<PortcullisError> {
    const { store } = this.#context;
    await store.deleteTokens({ issuer: tokens.issuer, resource: tokens.resource, clientId: tokens.clientId });
    const registered = await store.getClient(tokens.issuer);
    if (registered?.clientId === tokens.clientId) await store.deleteClient(tokens.issuer);
    report(
      this.#context.onProgress,
      'refresh',
      `${tokens.issuer} no longer accepts the client ${tokens.clientId} (invalid_client); its registration is dropped`,
    );
    return new PortcullisError(
      'refresh_rejected',
      `${tokens.issuer} refused the client ${tokens.clientId} (invalid_client); a new authorization is needed.`,
      { issuer: tokens.issuer },
      { cause },
    );
  }

  #expiresSoon(tokens: StoredTokenSet): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt - this.#context.now() <= this.#refreshSkewMs;
  }
}
