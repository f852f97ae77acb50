/**
 * One authorization, in the order of MCP 2026-07-28 "Authorization Flow Steps": resource metadata, the
 * authorization server, its metadata, a client ID, the authorization request through the user-agent, the checks
 * of the response, the token request.
 *
 * Rules kept here:
 * - MCP "Authorization Server Location" and RFC 9728 Section 7.6: the client chooses among the PRM's
 *   `authorization_servers`; the first, unless the caller's `selectAuthorizationServer` picks another listed one.
 * - RFC 9728 Section 3.3: a PRM whose `resource` is not the resource being called stops the flow before any
 *   request to an authorization server (the check lives in the discovery step, which runs first).
 * - MCP 2026-07-28 "Authorization Response Validation": the response checks of `authorization-response.ts` run
 *   before the code is redeemed.
 * - MCP 2026-07-28 "Token Handling" and "Authorization Server Binding": once tokens from one issuer are stored for
 *   a resource, token sets for that resource from other issuers or clients are deleted, so they are never
 *   presented again.
 * - RFC 9449 Sections 5 and 10 (MCP SEP-1932): where a proof-of-possession extension is composed, the resource
 *   accepts its scheme (RFC 9728 Section 2 metadata, or a challenge of the scheme, RFC 9449 Section 7.1) and the
 *   authorization server offers it, the authorization generates its own key pair before the authorization request,
 *   names it there (`dpop_jkt`), proves possession of it at the token endpoint and stores it with the tokens.
 *   Otherwise it asks for Bearer tokens; and when the authorization server then refuses them for want of a proof
 *   (`invalid_dpop_proof`, `use_dpop_nonce`), no token it issues could serve the resource:
 *   `proof_of_possession_required`, naming both, rather than a bound token the resource would reject.
 */
import type { ProtectedResourceMetadata } from '@portcullis/metadata';
import type { Revision } from '@portcullis/revisions';
import {
  PreRegisteredClients,
  privateKeyFor,
  resolveClient,
  type ResolvedClient,
} from '../client-id/client-id.resolver.js';
import {
  chooseTokenEndpointAuthMethod,
  type ClientRegistrationMetadata,
} from '../client-id/registration.endpoint.js';
import type { DiscoveredAuthorizationServer } from '../discovery/authorization-server.discovery.js';
import type { BearerChallenge } from '../discovery/bearer-challenge.js';
import {
  discoverResourceMetadata,
  type DiscoveredResourceMetadata,
} from '../discovery/resource-metadata.discovery.js';
import { isPortcullisError, PortcullisError } from '../errors/portcullis-error.js';
import { withoutQuery, type FetchLike } from '../http/http.js';
import { isKeyBound, type ProofOfPossession, type TokenProof } from '../proof/proof-of-possession.js';
import { report, type ProgressListener } from '../progress.js';
import type { StoredClient, StoredTokenSet, TokenStore } from '../store/token-store.js';
import type { UserAgent } from '../user-agent/user-agent.js';
import { buildAuthorizationRequest } from './authorization-request.js';
import { obtainWithGrantStrategy, usesGrantStrategy, type SelectedGrantStrategy } from './grant-strategy.js';
import { checkAuthorizationResponse } from './authorization-response.js';
import { openIdClientConfiguration } from './openid-client.configuration.js';
import { selectInitialScopes, selectStepUpScopes, withOfflineAccess } from './scope-selection.js';
import { redeemAuthorizationCode, toStoredTokenSet } from './token.endpoint.js';

/**
 * Picks one of the PRM's authorization servers.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-7.6
 */
export type AuthorizationServerSelector = (
  authorizationServers: readonly string[],
  metadata: ProtectedResourceMetadata,
) => string | Promise<string>;

/**
 * Everything one authorization needs, shared by every authorization of an authorized fetch.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 */
export interface FlowContext {
  /** The canonical URI of the resource being called. */
  readonly resource: string;
  readonly revision: Revision;
  readonly fetch: FetchLike;
  /** Absent when every token comes from a grant strategy (no authorization code flow). */
  readonly userAgent: UserAgent | undefined;
  readonly store: TokenStore;
  readonly preRegistered: PreRegisteredClients;
  readonly clientMetadataUrl: string | undefined;
  readonly registrationMetadata: ClientRegistrationMetadata;
  readonly wantsRefreshTokens: boolean;
  readonly selectAuthorizationServer: AuthorizationServerSelector | undefined;
  /** Discovers (and may cache) an authorization server's checked metadata. */
  readonly discoverAuthorizationServer: (issuer: string) => Promise<DiscoveredAuthorizationServer>;
  readonly now: () => number;
  readonly onProgress: ProgressListener | undefined;
  /** An extension's grant strategy to obtain tokens with instead of the authorization code flow. */
  readonly grantStrategy?: SelectedGrantStrategy | undefined;
  /** The composed proof-of-possession extension (DPoP), unless the caller opted out. */
  readonly proofOfPossession?: ProofOfPossession | undefined;
}

/**
 * The resource's metadata and the authorization server chosen from it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 */
export interface Discovery {
  readonly resourceMetadata: DiscoveredResourceMetadata;
  readonly server: DiscoveredAuthorizationServer;
  /** The resource's challenge that started the discovery (its schemes say what tokens it accepts). */
  readonly challenge?: BearerChallenge | undefined;
}

/**
 * MCP "Authorization Flow Steps", the two metadata requests: the PRM (checked against the resource) and the
 * chosen server's checked metadata.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 */
export async function discover(
  context: FlowContext,
  challenge: BearerChallenge | undefined,
): Promise<Discovery> {
  const resourceMetadata = await discoverResourceMetadata({
    resource: context.resource,
    challenge,
    revision: context.revision,
    fetch: context.fetch,
  });
  report(
    context.onProgress,
    'resource_metadata',
    `Resource metadata from ${resourceMetadata.url} (resource ${resourceMetadata.resource})`,
  );
  const servers = resourceMetadata.metadata.authorization_servers;
  const issuer =
    context.selectAuthorizationServer === undefined
      ? (servers[0] as string)
      : await context.selectAuthorizationServer(servers, resourceMetadata.metadata);
  if (!servers.includes(issuer)) {
    throw new PortcullisError(
      'authorization_server_not_listed',
      `${issuer} is not one of the authorization servers the resource lists (${servers.join(', ')}).`,
      { issuer, listed: servers },
    );
  }
  const server = await context.discoverAuthorizationServer(issuer);
  report(
    context.onProgress,
    'authorization_server',
    `Authorization server ${server.issuer} (metadata ${server.url})`,
  );
  return { resourceMetadata, server, challenge };
}

/**
 * Why an authorization runs: first access (scopes of MCP 2026-07-28 "Scope Selection Strategy") or step-up
 * ("Step-Up Authorization Flow").
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
export type AuthorizationReason =
  | { readonly kind: 'initial'; readonly challenge: BearerChallenge | undefined }
  | {
      readonly kind: 'step-up';
      readonly challengeScope: readonly string[];
      readonly previous: StoredTokenSet | undefined;
    };

/**
 * Runs one authorization code flow and stores its tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 */
export async function authorize(
  context: FlowContext,
  discovery: Discovery,
  reason: AuthorizationReason,
): Promise<StoredTokenSet> {
  const { revision } = context;
  const { server, resourceMetadata } = discovery;
  const resourceScopes =
    reason.kind === 'initial'
      ? selectInitialScopes({
          challengeScope: revision.supports('scope-challenge') ? reason.challenge?.scope : undefined,
          scopesSupported: resourceMetadata.metadata.scopes_supported,
        })
      : selectStepUpScopes({
          previouslyRequested: reason.previous?.requestedScope ?? [],
          challengeScope: reason.challengeScope,
          revision,
        });
  // An extension's grant (client credentials, ...) where the server offers it: no user, no refresh token.
  if (usesGrantStrategy(context.grantStrategy, server)) {
    return obtainWithGrantStrategy(context, discovery, context.grantStrategy, resourceScopes);
  }
  const userAgent = context.userAgent;
  if (userAgent === undefined) {
    throw new TypeError(
      'an authorized fetch without a userAgent can only obtain tokens with a grant strategy',
    );
  }
  const scope = withOfflineAccess(resourceScopes, {
    authorizationServerScopes: server.metadata.scopes_supported,
    wantsRefreshTokens: context.wantsRefreshTokens,
    revision,
  });

  const session = await userAgent.begin();
  try {
    const client = await resolveClient({
      server,
      revision,
      redirectUri: session.redirectUri,
      registrationRedirectUris: userAgent.redirectUris,
      preRegistered: context.preRegistered,
      clientMetadataUrl: context.clientMetadataUrl,
      registrationMetadata: context.registrationMetadata,
      wantsRefreshTokens: context.wantsRefreshTokens,
      store: context.store,
      fetch: context.fetch,
      now: context.now,
      onProgress: context.onProgress,
    });
    const proof = await newTokenProof(context, discovery);
    const config = openIdClientConfiguration({
      server,
      client,
      fetch: context.fetch,
      privateKey: privateKeyFor(context, client),
      proof,
    });
    const { url, pending } = await buildAuthorizationRequest(config, {
      issuer: server.issuer,
      issParameterSupported: server.metadata.authorization_response_iss_parameter_supported === true,
      redirectUri: session.redirectUri,
      resource: resourceMetadata.resource,
      scope,
      extraParameters: proof === undefined ? {} : await proof.pop.authorizationRequestParameters(proof.key),
    });
    report(
      context.onProgress,
      reason.kind === 'step-up' ? 'step_up' : 'authorization_request',
      `${reason.kind === 'step-up' ? 'Stepping up at' : 'Authorizing at'} ${withoutQuery(url)} (scope: ${scope.length === 0 ? '(none)' : scope.join(' ')})`,
    );
    const callbackUrl = await session.authorize(url);
    const checked = checkAuthorizationResponse(callbackUrl, pending, revision);
    report(
      context.onProgress,
      'callback',
      `Authorization response accepted (state${pending.issParameterSupported || checked.searchParams.has('iss') ? ' and iss' : ''} checked)`,
    );
    const response = await redeemAuthorizationCode(config, checked, pending, proof).catch(
      (error: unknown) => {
        throw proofRequiredError(context, discovery, proof, error);
      },
    );
    const tokens = toStoredTokenSet(response, {
      key: { issuer: server.issuer, resource: context.resource, clientId: client.clientId },
      resourceIndicator: resourceMetadata.resource,
      requestedScope: scope,
      now: context.now(),
      proofKey: proof?.key,
    });
    await saveAndRetire(context.store, tokens);
    report(context.onProgress, 'token', describeTokens(tokens, client));
    return tokens;
  } finally {
    await session.close();
  }
}

/**
 * A new key for an authorization, when a proof-of-possession extension is composed, the resource accepts its
 * scheme (RFC 9728 Section 2, RFC 9449 Section 7.1) and the authorization server offers it (RFC 9449 Section 5.1);
 * `undefined` otherwise, for Bearer tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export async function newTokenProof(
  context: FlowContext,
  discovery: Discovery,
): Promise<TokenProof | undefined> {
  const pop = context.proofOfPossession;
  if (pop === undefined) return undefined;
  const { server, resourceMetadata, challenge } = discovery;
  if (!pop.acceptedBy(resourceMetadata.metadata, challenge)) {
    if (pop.offeredBy(server.metadata)) {
      report(
        context.onProgress,
        'authorization_server',
        `${server.issuer} offers ${pop.scheme}; ${context.resource} does not advertise it, so Bearer tokens are requested`,
      );
    }
    return undefined;
  }
  const key = await pop.keyFor(server.metadata, resourceMetadata.metadata);
  return key === undefined ? undefined : { pop, key };
}

/**
 * What a failed token request becomes when it carried no proof because the resource does not accept the scheme,
 * and the authorization server refused it for want of one (RFC 9449 Section 5: `invalid_dpop_proof`, or its nonce
 * error): `proof_of_possession_required`, naming the server and the resource, since no token it would issue could
 * be used there. Any other error is returned as it is.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function proofRequiredError(
  context: FlowContext,
  discovery: Discovery,
  proof: TokenProof | undefined,
  error: unknown,
): unknown {
  const pop = context.proofOfPossession;
  if (proof !== undefined || pop === undefined || !isPortcullisError(error, 'token_request_failed'))
    return error;
  const refusal = error.authorizationServerError;
  const { server, resourceMetadata, challenge } = discovery;
  if (!pop.demandsProof(refusal?.error) || pop.acceptedBy(resourceMetadata.metadata, challenge)) return error;
  return new PortcullisError(
    'proof_of_possession_required',
    `The authorization server ${server.issuer} requires ${pop.scheme}-bound tokens (its token endpoint answered ` +
      `${refusal?.error ?? ''}), and the resource ${context.resource} does not advertise ${pop.scheme} (neither its ` +
      `metadata nor its challenge names it), so no token from that server can be used there; the resource ` +
      `or the authorization server needs reconfiguring.`,
    { issuer: server.issuer, resource: context.resource, scheme: pop.scheme },
    { cause: error, ...(refusal === undefined ? {} : { authorizationServerError: refusal }) },
  );
}

/**
 * Stores a token set, then deletes every other token set of the same resource (other issuers or clients).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-7.6
 */
export async function saveAndRetire(store: TokenStore, tokens: StoredTokenSet): Promise<void> {
  await store.saveTokens(tokens);
  for (const other of await store.findTokens(tokens.resource)) {
    if (other.issuer !== tokens.issuer || other.clientId !== tokens.clientId) {
      await store.deleteTokens({ issuer: other.issuer, resource: other.resource, clientId: other.clientId });
    }
  }
}

/** The client to refresh a token set with: the one that obtained it, looked up where it was found. */
export async function clientForTokens(context: FlowContext, tokens: StoredTokenSet): Promise<StoredClient> {
  const preRegistered = context.preRegistered.forIssuer(tokens.issuer);
  if (preRegistered !== undefined && preRegistered.clientId === tokens.clientId) {
    return {
      issuer: tokens.issuer,
      clientId: preRegistered.clientId,
      ...(preRegistered.clientSecret === undefined ? {} : { clientSecret: preRegistered.clientSecret }),
      tokenEndpointAuthMethod: preRegistered.privateKey
        ? chooseTokenEndpointAuthMethod({
            registered: preRegistered.tokenEndpointAuthMethod,
            hasSecret: preRegistered.clientSecret !== undefined,
            hasPrivateKey: true,
            supported: undefined,
          })
        : (preRegistered.tokenEndpointAuthMethod ??
          (preRegistered.clientSecret === undefined ? 'none' : 'client_secret_basic')),
      redirectUris: [],
      registeredAt: tokens.obtainedAt,
    };
  }
  const stored = await context.store.getClient(tokens.issuer);
  if (stored !== undefined && stored.clientId === tokens.clientId) return stored;
  // A metadata-document client, or one whose registration is gone: a public client.
  return {
    issuer: tokens.issuer,
    clientId: tokens.clientId,
    tokenEndpointAuthMethod: 'none',
    redirectUris: [],
    registeredAt: tokens.obtainedAt,
  };
}

function describeTokens(tokens: StoredTokenSet, client: ResolvedClient | StoredClient): string {
  const expires =
    tokens.expiresAt === undefined
      ? ''
      : `, expires in ${Math.round((tokens.expiresAt - tokens.obtainedAt) / 1000)} s`;
  return (
    `Access token issued by ${tokens.issuer} to ${client.clientId} ` +
    `(scope: ${tokens.scope.length === 0 ? '(none)' : tokens.scope.join(' ')}${expires}` +
    `${tokens.refreshToken === undefined ? '' : ', with a refresh token'}${boundDescription(tokens)})`
  );
}

/** How a progress line describes the binding of a token set (never the key itself). */
export function boundDescription(tokens: StoredTokenSet): string {
  if (isKeyBound(tokens)) return `, ${tokens.tokenType}-bound to this authorization's key`;
  return tokens.proofKey === undefined ? '' : ', a Bearer token although a proof was sent';
}
