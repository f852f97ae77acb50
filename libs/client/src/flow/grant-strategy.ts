/**
 * Obtaining tokens with an extension's client grant strategy (`@portcullis/extensions`, `ClientHooks`) instead of
 * the authorization code flow, after the same discovery (PRM, then authorization server metadata).
 *
 * Rules kept here:
 * - RFC 8414 Section 2: a strategy is used only when the authorization server lists its grant type in
 *   `grant_types_supported`; otherwise the authorization code flow runs when the caller allows it, else
 *   `grant_type_unsupported`.
 * - MCP SEP-1046 (https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx)
 *   and RFC 6749 Section 4.4: such grants need credentials registered out of band; the pre-registered client for
 *   the issuer is used (MCP 2026-07-28 "Authorization Server Binding"), with its configured authentication
 *   (`client_secret_basic` unless it says otherwise), else `no_client_id`.
 * - RFC 8707 Section 2: every token request carries `resource`, the value the resource metadata published.
 * - RFC 6749 Section 4.4.3: such grants bring no refresh token; an expired token is obtained again the same way.
 * - RFC 9449 Section 5 (MCP SEP-1932): where the resource accepts DPoP and the authorization server offers it
 *   (`newTokenProof`), each obtained token gets its own key pair, every token request of the strategy
 *   (`requestToken`) carries a fresh proof (retried once with the server's nonce), and the key is stored with the
 *   token; a server that demands a proof for a resource that does not accept one is `proof_of_possession_required`.
 */
import * as oidc from 'openid-client';
import type { ClientGrantStrategy, ExtensionRegistry, TokenResponse } from '@portcullis/extensions';
import { PortcullisError } from '../errors/portcullis-error.js';
import { report } from '../progress.js';
import type { StoredClient, StoredTokenSet } from '../store/token-store.js';
import type { DiscoveredAuthorizationServer } from '../discovery/authorization-server.discovery.js';
import {
  boundDescription,
  newTokenProof,
  proofRequiredError,
  saveAndRetire,
  type Discovery,
  type FlowContext,
} from './authorization-flow.js';
import { openIdClientConfiguration } from './openid-client.configuration.js';
import {
  challengeErrorBody,
  readTokenResponse,
  toStoredTokenSet,
  tokenEndpointError,
  withNonceRetry,
} from './token.endpoint.js';

/**
 * The strategy an authorized fetch obtains tokens with, chosen by name among a registry's client grant strategies.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface SelectedGrantStrategy {
  readonly name: string;
  readonly strategy: ClientGrantStrategy;
  /** Where the authorization server does not offer the strategy's grant type: run the authorization code flow. */
  readonly fallbackToAuthorizationCode: boolean;
}

/**
 * The strategy `name` of `extensions`; a `TypeError` naming the available ones when there is none by that name.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export function selectGrantStrategy(
  extensions: ExtensionRegistry | undefined,
  name: string,
  fallbackToAuthorizationCode: boolean,
): SelectedGrantStrategy {
  const strategies = extensions?.clientGrantStrategies() ?? [];
  const found = strategies.find((entry) => entry.name === name);
  if (found === undefined) {
    const known = strategies.map((entry) => entry.name).join(', ') || 'none';
    throw new TypeError(`grantStrategy ${name} is not a strategy of the composed extensions (${known})`);
  }
  return { name, strategy: found.strategy, fallbackToAuthorizationCode };
}

/**
 * Whether the authorization flow should use the selected strategy with `server`: its grant type is listed there.
 * Throws `grant_type_unsupported` when it is not and the caller allowed no fallback.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export function usesGrantStrategy(
  selected: SelectedGrantStrategy | undefined,
  server: DiscoveredAuthorizationServer,
): selected is SelectedGrantStrategy {
  if (selected === undefined) return false;
  const listed = server.metadata.grant_types_supported ?? [];
  if (listed.includes(selected.strategy.grantType)) return true;
  if (selected.fallbackToAuthorizationCode) return false;
  throw new PortcullisError(
    'grant_type_unsupported',
    `${server.issuer} does not list ${selected.strategy.grantType} in grant_types_supported (it lists ${listed.join(', ') || 'none'}).`,
    { issuer: server.issuer, grantType: selected.strategy.grantType },
  );
}

/**
 * Runs the strategy for the resource, with the pre-registered client of the issuer, and stores the tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.4
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export async function obtainWithGrantStrategy(
  context: FlowContext,
  discovery: Discovery,
  selected: SelectedGrantStrategy,
  scope: readonly string[],
): Promise<StoredTokenSet> {
  const { server, resourceMetadata } = discovery;
  const preRegistered = context.preRegistered.forIssuer(server.issuer);
  if (preRegistered === undefined) {
    throw new PortcullisError(
      'no_client_id',
      `The ${selected.strategy.grantType} grant needs a client registered with ${server.issuer} (give its client ID and secret).`,
      { issuer: server.issuer },
    );
  }
  const client: StoredClient = {
    issuer: server.issuer,
    clientId: preRegistered.clientId,
    ...(preRegistered.clientSecret === undefined ? {} : { clientSecret: preRegistered.clientSecret }),
    tokenEndpointAuthMethod:
      preRegistered.tokenEndpointAuthMethod ??
      // RFC 7523 2.2: a client given a private key authenticates with private_key_jwt.
      (preRegistered.privateKey !== undefined
        ? 'private_key_jwt'
        : preRegistered.clientSecret === undefined
          ? 'none'
          : 'client_secret_basic'),
    redirectUris: [],
    registeredAt: context.now(),
  };
  const proof = await newTokenProof(context, discovery);
  const config = openIdClientConfiguration({
    server,
    client,
    fetch: context.fetch,
    privateKey: preRegistered.privateKey,
    proof,
  });
  report(
    context.onProgress,
    'token',
    `Requesting a token with the ${selected.strategy.grantType} grant (strategy ${selected.name}) as ${client.clientId} (scope: ${scope.length === 0 ? '(none)' : scope.join(' ')})`,
  );
  const response = await selected.strategy.obtainToken({
    issuer: server.issuer,
    authorizationServerMetadata: server.metadata,
    resource: resourceMetadata.resource,
    scope,
    revision: context.revision.id,
    fetch: (input, init) => context.fetch(input, init),
    requestToken: async (params): Promise<TokenResponse> => {
      const { grant_type: grantType = selected.strategy.grantType, ...rest } = params;
      try {
        const answer = await withNonceRetry(proof, () =>
          oidc.genericGrantRequest(config, grantType, {
            ...rest,
            resource: resourceMetadata.resource,
          }),
        );
        // Parsed from JSON and checked: every member is a JSON value.
        return readTokenResponse(answer, proof) as unknown as TokenResponse;
      } catch (error) {
        throw proofRequiredError(
          context,
          discovery,
          proof,
          tokenEndpointError(
            await challengeErrorBody(error),
            `requesting a token with the ${grantType} grant`,
          ),
        );
      }
    },
  });
  const checked = readTokenResponse(response as unknown as oidc.TokenEndpointResponse, proof);
  const tokens = toStoredTokenSet(checked, {
    key: { issuer: server.issuer, resource: context.resource, clientId: client.clientId },
    resourceIndicator: resourceMetadata.resource,
    requestedScope: scope,
    now: context.now(),
    proofKey: proof?.key,
  });
  // A refresh token is never used with such a grant (RFC 6749 4.4.3): the next token is obtained the same way.
  const { refreshToken: _unused, ...stored } = tokens;
  await saveAndRetire(context.store, stored);
  report(
    context.onProgress,
    'token',
    `Access token issued by ${stored.issuer} to ${stored.clientId} with the ${selected.strategy.grantType} grant (scope: ${stored.scope.length === 0 ? '(none)' : stored.scope.join(' ')}${boundDescription(stored)})`,
  );
  return stored;
}
