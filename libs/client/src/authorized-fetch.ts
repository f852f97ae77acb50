/**
 * `createAuthorizedFetch`: a `fetch` for one protected resource that carries its bearer token and runs the
 * authorization flow when the resource asks for it.
 *
 * Rules kept here:
 * - MCP "Token Requirements" and "Token Handling": the token goes in the `Authorization` header of every request to
 *   the resource, never in the URL, never to another origin, and not past a cross-origin redirect
 *   (`resource-request.ts`).
 * - MCP "Authorization Flow Steps" and 2026-07-28 "Protected Resource Metadata Discovery Requirements": a 401 runs
 *   the flow (or a refresh, see `ResourceSession`) and the request is retried with the new token. A resource that
 *   rejects a token just issued for it is not asked again (`token_rejected`).
 * - MCP 2026-07-28 "Step-Up Authorization Flow": a 403 `insufficient_scope` runs a step-up and a retry, at most
 *   `maxAuthorizationAttempts` authorizations per request (3 by default: the conformance suite's limit); past it,
 *   and for later requests of an operation that exhausted it without ever succeeding, `step_up_exhausted`. Attempts
 *   are tracked per resource and operation, as that section recommends, and forgotten once the operation succeeds.
 * - Requests to other URLs pass through untouched, and so does a response from outside the resource that a
 *   redirect led to: its challenge is not the resource's.
 * - RFC 9449 and MCP SEP-1932: with a proof-of-possession extension composed (`extensions`) and not switched off
 *   (`proofOfPossession: false`), an authorization for a resource that accepts DPoP (its metadata advertises it,
 *   RFC 9728 Section 2, or its challenge uses the `DPoP` scheme, RFC 9449 Section 7.1) at an authorization server
 *   that offers DPoP is DPoP throughout; any other resource gets Bearer tokens (`proof_of_possession_required` when
 *   the authorization server insists on a proof for it). A DPoP-bound token goes to the resource as
 *   `Authorization: DPoP` with a fresh proof on every request
 *   (`proof/proof-of-possession.ts`). A 401 `use_dpop_nonce` with a `DPoP-Nonce` is answered by sending the request
 *   once more with a proof carrying the nonce (RFC 9449 Section 9), not by an authorization. A bound token is never
 *   sent without its proof: without the extension it is treated as unusable, and the 401 that follows renews it.
 */
import type { ExtensionRegistry } from '@portcullis/extensions';
import { isClientIdMetadataUrl, isLoopbackClientIdMetadataUrl } from '@portcullis/metadata';
import { canonicalizeResourceUri } from '@portcullis/protocol';
import { LATEST_REVISION, getRevision, type Revision } from '@portcullis/revisions';
import { PreRegisteredClients, type PreRegisteredClient } from './client-id/client-id.resolver.js';
import type { ClientRegistrationMetadata } from './client-id/registration.endpoint.js';
import { AuthorizationServerCache } from './discovery/authorization-server.cache.js';
import { readBearerChallenge } from './discovery/bearer-challenge.js';
import { selectGrantStrategy } from './flow/grant-strategy.js';
import { PortcullisError } from './errors/portcullis-error.js';
import type { AuthorizationServerSelector, FlowContext } from './flow/authorization-flow.js';
import { discardBody, type FetchLike } from './http/http.js';
import {
  bearerCredentials,
  isResourceUrl,
  sendToResource,
  toReplayableRequest,
  type ResourceCredentials,
} from './http/resource-request.js';
import { isKeyBound, ProofOfPossession } from './proof/proof-of-possession.js';
import { report, type ProgressListener } from './progress.js';
import { operationKey } from './session/operation-key.js';
import { ResourceSession } from './session/resource-session.js';
import { MemoryTokenStore } from './store/memory-token-store.js';
import type { StoredTokenSet, TokenStore } from './store/token-store.js';
import type { UserAgent } from './user-agent/user-agent.js';

/**
 * Options of {@link createAuthorizedFetch}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 */
export interface AuthorizedFetchOptions {
  /** The protected resource (the MCP endpoint URL), e.g. `http://localhost:4100/mcp`. */
  readonly resource: string;
  /**
   * Takes the user to the authorization server and brings back the callback. Not needed with a `grantStrategy`
   * that has no fallback to the authorization code flow.
   */
  readonly userAgent?: UserAgent;
  /** The spec revision whose rules apply; default the latest (`2026-07-28`). */
  readonly revision?: string;
  /** Where tokens and registered clients are kept; default a {@link MemoryTokenStore}. */
  readonly store?: TokenStore;
  /** Pre-registered credentials, each bound to its issuer (or to the first server it is used with). */
  readonly clientCredentials?: PreRegisteredClient | readonly PreRegisteredClient[];
  /** An https URL of this client's client ID metadata document, used where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** How the client describes itself when it registers dynamically; default name `Portcullis client`. */
  readonly clientRegistration?: Partial<ClientRegistrationMetadata>;
  /** Ask for refresh tokens (`offline_access` where listed, `refresh_token` grant); default `true`. */
  readonly wantsRefreshTokens?: boolean;
  /** Chooses among the resource's authorization servers; default the first. */
  readonly selectAuthorizationServer?: AuthorizationServerSelector;
  /** Authorizations per request and per operation before `step_up_exhausted`; default 3. */
  readonly maxAuthorizationAttempts?: number;
  /** Refresh this long before the access token expires; default 60 s. */
  readonly refreshSkewSeconds?: number;
  /** The fetch used for every request; default the global `fetch`. */
  readonly fetch?: FetchLike;
  /** The clock, in milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** Told each step of the flow. */
  readonly onProgress?: ProgressListener;
  /** Composed extensions (`@portcullis/extensions`) whose client grant strategies `grantStrategy` names. */
  readonly extensions?: ExtensionRegistry;
  /**
   * Obtain tokens with this client grant strategy of `extensions` (e.g. `client-credentials`) instead of the
   * authorization code flow, where the authorization server lists its grant type in `grant_types_supported`; it
   * uses the pre-registered client of `clientCredentials` for that issuer.
   */
  readonly grantStrategy?: string;
  /**
   * Where the authorization server does not list the strategy's grant type: `error` (default,
   * `grant_type_unsupported`) or `authorization_code` (run the authorization code flow instead).
   */
  readonly grantStrategyFallback?: 'error' | 'authorization_code';
  /**
   * Whether to use the proof of possession (DPoP, RFC 9449) of a composed extension of `extensions` for resources
   * that accept it, with authorization servers that offer it; default `true`. `false` obtains and sends Bearer
   * tokens only.
   */
  readonly proofOfPossession?: boolean;
}

/**
 * The token set of a resource, without the tokens themselves.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export interface TokenSummary {
  readonly issuer: string;
  readonly resource: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly expiresAt?: number;
  readonly hasRefreshToken: boolean;
  /** The access token's type as issued: `Bearer`, or `DPoP` for a sender-constrained token. */
  readonly tokenType: string;
  /** Whether the tokens are bound to a key kept with them (DPoP, RFC 9449); the key is never shown. */
  readonly keyBound: boolean;
}

/**
 * A `fetch` bound to one protected resource.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
export interface AuthorizedFetch extends FetchLike {
  /** The canonical URI of the resource. */
  readonly resource: string;
  readonly revision: Revision;
  /** The stored tokens of the resource, described without secrets. */
  tokens(): Promise<TokenSummary | undefined>;
  /** Deletes the resource's stored tokens; returns how many token sets were deleted. */
  signOut(): Promise<number>;
  /**
   * The ids of the extensions this fetch obtains tokens with: the extension of `grantStrategy`, else none. An MCP
   * client declares them in its `capabilities.extensions` (`mcpClientCapabilities`).
   *
   * @see https://modelcontextprotocol.io/seps/2133-extensions
   */
  readonly declaredExtensions: readonly string[];
}

/**
 * Creates an authorized fetch for one protected resource.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 */
export function createAuthorizedFetch(options: AuthorizedFetchOptions): AuthorizedFetch {
  const resource = canonicalizeResourceUri(options.resource);
  const revision = getRevision(options.revision ?? LATEST_REVISION);
  // A loopback http document is the development form: only an authorization server on loopback fetches it.
  const metadataUrl = options.clientMetadataUrl;
  if (
    metadataUrl !== undefined &&
    !isClientIdMetadataUrl(metadataUrl) &&
    !isLoopbackClientIdMetadataUrl(metadataUrl)
  ) {
    throw new TypeError(
      'clientMetadataUrl must be an https URL (http only on a loopback host) with a path, without fragment, userinfo or dot segments',
    );
  }
  const grantStrategy =
    options.grantStrategy === undefined
      ? undefined
      : selectGrantStrategy(
          options.extensions,
          options.grantStrategy,
          options.grantStrategyFallback === 'authorization_code',
        );
  // The extension contributing the strategy found by name just above.
  const strategyExtension =
    grantStrategy === undefined
      ? undefined
      : options.extensions?.clientGrantStrategies().find(({ name }) => name === grantStrategy.name)
          ?.extensionId;
  if (options.userAgent === undefined && (grantStrategy?.fallbackToAuthorizationCode ?? true)) {
    throw new TypeError('userAgent is required unless a grantStrategy without fallback obtains every token');
  }
  for (const uri of options.userAgent?.redirectUris ?? []) {
    const url = new URL(uri);
    if (url.href !== uri || url.search !== '')
      throw new TypeError(`redirect URI ${uri} must be normalised and have no query`);
  }
  const baseFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const popHooks =
    options.proofOfPossession === false ? undefined : options.extensions?.clientProofOfPossession();
  const pop = popHooks === undefined ? undefined : new ProofOfPossession(popHooks);
  const maxAttempts = options.maxAuthorizationAttempts ?? 3;
  const store = options.store ?? new MemoryTokenStore();
  const now = options.now ?? Date.now;
  const servers = new AuthorizationServerCache({ revision, fetch: baseFetch, store, now });

  const context: FlowContext = {
    resource,
    revision,
    fetch: baseFetch,
    userAgent: options.userAgent,
    store,
    preRegistered: new PreRegisteredClients(options.clientCredentials),
    clientMetadataUrl: options.clientMetadataUrl,
    registrationMetadata: { clientName: 'Portcullis client', ...options.clientRegistration },
    wantsRefreshTokens: options.wantsRefreshTokens ?? true,
    selectAuthorizationServer: options.selectAuthorizationServer,
    discoverAuthorizationServer: (issuer) => servers.discover(issuer),
    now,
    onProgress: options.onProgress,
    grantStrategy,
    proofOfPossession: pop,
  };
  const session = new ResourceSession(context, (options.refreshSkewSeconds ?? 60) * 1000);
  const stepUpAttempts = new Map<string, number>();

  const authorizedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const target = new URL(input instanceof Request ? input.url : input);
    if (!isResourceUrl(target, resource)) return baseFetch(input, init);
    const request = await toReplayableRequest(input, init);
    const operation = operationKey(request.method, request.url, request.body);
    let authorizations = 0;
    let unauthorizedRounds = 0;
    let nonceRetriedFor: string | undefined;
    for (;;) {
      const tokens = await session.current();
      const token = tokens?.accessToken;
      const credentials = credentialsFor(tokens, pop);
      const response = await sendToResource(baseFetch, request, resource, credentials?.credentials);
      // A challenge from wherever a redirect led outside the resource is not the resource's to answer.
      if (response.url !== '' && !isResourceUrl(new URL(response.url), resource)) return response;
      if (
        response.status === 401 &&
        pop !== undefined &&
        credentials?.scheme === pop.scheme &&
        token !== undefined &&
        nonceRetriedFor !== token &&
        pop.asksForNonce(response)
      ) {
        // RFC 9449 9: the resource wants its nonce in the proof (remembered from this response); once per token.
        nonceRetriedFor = token;
        await discardBody(response);
        report(
          context.onProgress,
          'retry',
          `Retrying ${request.method} ${request.url.pathname} with the resource's DPoP nonce`,
        );
        continue;
      }
      if (response.status === 401) {
        const challenge = readBearerChallenge(response, credentials?.scheme);
        await discardBody(response);
        unauthorizedRounds += 1;
        if (unauthorizedRounds > 2) {
          throw new PortcullisError(
            'token_rejected',
            `${resource} keeps rejecting newly issued tokens (401); check that the resource trusts this authorization server.`,
            { resource },
          );
        }
        authorizations += 1;
        // The first 401 may be answered by a refresh; if the refreshed token is rejected too, authorize anew.
        await session.unauthorized(token, challenge, unauthorizedRounds === 1);
        report(
          context.onProgress,
          'retry',
          `Retrying ${request.method} ${request.url.pathname} with the new token`,
        );
        continue;
      }
      if (response.status === 403) {
        const challenge = readBearerChallenge(response, credentials?.scheme);
        if (challenge?.error === 'insufficient_scope') {
          if (authorizations >= maxAttempts || (stepUpAttempts.get(operation) ?? 0) >= maxAttempts) {
            await discardBody(response);
            throw new PortcullisError(
              'step_up_exhausted',
              `${resource} still answers insufficient_scope for ${operation} after ${maxAttempts} authorizations; giving up.`,
              { resource, operation, scope: challenge.scope ?? [] },
            );
          }
          const stepped = await session.insufficientScope(token, challenge);
          if (stepped !== undefined) {
            await discardBody(response);
            authorizations += 1;
            stepUpAttempts.set(operation, (stepUpAttempts.get(operation) ?? 0) + 1);
            report(
              context.onProgress,
              'retry',
              `Retrying ${request.method} ${request.url.pathname} with the stepped-up token`,
            );
            continue;
          }
        }
        return response;
      }
      stepUpAttempts.delete(operation);
      return response;
    }
  };

  return Object.assign(authorizedFetch, {
    resource,
    revision,
    tokens: async () => summarize(await session.stored()),
    signOut: () => session.signOut(),
    declaredExtensions: Object.freeze(strategyExtension === undefined ? [] : [strategyExtension]),
  });
}

/**
 * How the stored tokens go to the resource: Bearer, or the proof scheme with a proof for a bound token. A bound
 * token without the extension to prove it is not sent at all.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
function credentialsFor(
  tokens: StoredTokenSet | undefined,
  pop: ProofOfPossession | undefined,
): { scheme: string; credentials: ResourceCredentials } | undefined {
  if (tokens === undefined) return undefined;
  if (pop?.binds(tokens) === true && tokens.proofKey !== undefined) {
    return { scheme: pop.scheme, credentials: pop.resourceCredentials(tokens.proofKey, tokens.accessToken) };
  }
  if (isKeyBound(tokens)) return undefined;
  return { scheme: 'Bearer', credentials: bearerCredentials(tokens.accessToken) };
}

function summarize(tokens: StoredTokenSet | undefined): TokenSummary | undefined {
  if (tokens === undefined) return undefined;
  return {
    issuer: tokens.issuer,
    resource: tokens.resource,
    clientId: tokens.clientId,
    scope: tokens.scope,
    ...(tokens.expiresAt === undefined ? {} : { expiresAt: tokens.expiresAt }),
    hasRefreshToken: tokens.refreshToken !== undefined,
    tokenType: tokens.tokenType,
    keyBound: isKeyBound(tokens),
  };
}
