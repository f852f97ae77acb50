/**
 * Getting a client ID for an authorization server.
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Client Registration" (its priority order): pre-registered credentials first; then a client ID
 *   metadata document URL when the server advertises `client_id_metadata_document_supported: true` (feature
 *   `client-id-metadata-documents`); then dynamic registration (deprecated, MAY); else an error that asks the user
 *   for a client ID ("Pre-registration"). 2025-06-18 ("Dynamic Client Registration"): pre-registered, then dynamic
 *   registration.
 * - MCP 2026-07-28 "Authorization Server Binding" (feature `credential-issuer-binding`): credentials are keyed by
 *   issuer and never sent to another server. Pre-registered credentials name their issuer; credentials given
 *   without one are bound to the first authorization server they are used with, and never offered to another
 *   afterwards. Registered credentials are stored per issuer and re-used; a new issuer means a new registration.
 * - RFC 8252 Section 7.3: a stored registration is re-used only when its registered redirect URIs accept this
 *   session's redirect URI (`redirectUriMatches`, loopback port freedom included).
 * - CIMD draft Section 4: a metadata-document client is public (`none`); this SDK does not publish documents, so
 *   it never declares keys in one.
 * - RFC 7523 Section 2.2 and RFC 8414 Section 2: a pre-registered client with a private key, and a registration
 *   made with one, authenticate with `private_key_jwt`, only at a server that lists it (`client_auth_unsupported`
 *   before anything is sent otherwise). A stored registration is re-used only with the key it was made with
 *   (its RFC 7638 thumbprint), and one made with a key only while that key is configured.
 */
import { redirectUriMatches } from '@portcullis/protocol';
import type { Revision } from '@portcullis/revisions';
import type { DiscoveredAuthorizationServer } from '../discovery/authorization-server.discovery.js';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { FetchLike } from '../http/http.js';
import { report, type ProgressListener } from '../progress.js';
import type { ClientAssertionKey } from '../client-auth/client-assertion-key.js';
import { assertPrivateKeyJwtSupported } from '../client-auth/private-key-jwt.js';
import type { StoredClient, TokenEndpointAuthMethod, TokenStore } from '../store/token-store.js';
import {
  chooseTokenEndpointAuthMethod,
  processRegistrationResponse,
  registrationRequest,
  registrationRequestBody,
  type ClientRegistrationMetadata,
} from './registration.endpoint.js';

/**
 * Credentials registered with an authorization server out of band.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2
 */
export interface PreRegisteredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** The issuer these credentials belong to. Absent: bound to the first authorization server they are used with. */
  readonly issuer?: string;
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** A private key registered for this client (`private_key_jwt`, RFC 7523 2.2), from `importClientAssertionKey`. */
  readonly privateKey?: ClientAssertionKey;
}

/**
 * How the client ID was obtained.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591
 */
export type ClientIdSource = 'pre-registered' | 'metadata-document' | 'stored-registration' | 'registered';

/**
 * A client ID ready to use with one authorization server.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.2
 */
export interface ResolvedClient extends StoredClient {
  readonly source: ClientIdSource;
}

/**
 * The per-authorized-fetch memory of which issuer unbound pre-registered credentials were bound to.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2
 */
export class PreRegisteredClients {
  readonly #clients: readonly PreRegisteredClient[];
  readonly #bindings = new Map<PreRegisteredClient, string>();

  constructor(clients: PreRegisteredClient | readonly PreRegisteredClient[] | undefined) {
    this.#clients =
      clients === undefined ? [] : Array.isArray(clients) ? clients : [clients as PreRegisteredClient];
  }

  /** The credentials for `issuer`: bound to it by configuration, by an earlier use, or bound to it now. */
  forIssuer(issuer: string): PreRegisteredClient | undefined {
    const explicit = this.#clients.find((client) => client.issuer === issuer);
    if (explicit !== undefined) return explicit;
    const bound = this.#clients.find(
      (client) => client.issuer === undefined && this.#bindings.get(client) === issuer,
    );
    if (bound !== undefined) return bound;
    const unbound = this.#clients.find(
      (client) => client.issuer === undefined && !this.#bindings.has(client),
    );
    if (unbound !== undefined) this.#bindings.set(unbound, issuer);
    return unbound;
  }
}

/**
 * What {@link resolveClient} needs.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591
 */
export interface ResolveClientInput {
  readonly server: DiscoveredAuthorizationServer;
  readonly revision: Revision;
  /** This session's exact redirect URI. */
  readonly redirectUri: string;
  /** The redirect URIs to register. */
  readonly registrationRedirectUris: readonly string[];
  readonly preRegistered: PreRegisteredClients;
  readonly clientMetadataUrl: string | undefined;
  readonly registrationMetadata: ClientRegistrationMetadata;
  readonly wantsRefreshTokens: boolean;
  readonly store: TokenStore;
  readonly fetch: FetchLike;
  readonly now: () => number;
  readonly onProgress: ProgressListener | undefined;
}

/**
 * A client ID for the server, in the priority of the revision. Throws `no_client_id` or `registration_failed`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00
 */
export async function resolveClient(input: ResolveClientInput): Promise<ResolvedClient> {
  const { server, revision } = input;
  const issuer = server.issuer;
  const supported = server.metadata.token_endpoint_auth_methods_supported;

  const preRegistered = input.preRegistered.forIssuer(issuer);
  if (preRegistered !== undefined) {
    report(
      input.onProgress,
      'client_id',
      `Using the pre-registered client ID ${preRegistered.clientId} at ${issuer}`,
    );
    const tokenEndpointAuthMethod = chooseTokenEndpointAuthMethod({
      registered: preRegistered.tokenEndpointAuthMethod,
      hasSecret: preRegistered.clientSecret !== undefined,
      hasPrivateKey: preRegistered.privateKey !== undefined,
      supported,
    });
    if (tokenEndpointAuthMethod === 'private_key_jwt' && preRegistered.privateKey !== undefined)
      assertPrivateKeyJwtSupported(server, preRegistered.privateKey);
    return {
      source: 'pre-registered',
      issuer,
      clientId: preRegistered.clientId,
      ...(preRegistered.clientSecret === undefined ? {} : { clientSecret: preRegistered.clientSecret }),
      tokenEndpointAuthMethod,
      redirectUris: [input.redirectUri],
      registeredAt: input.now(),
    };
  }

  if (
    input.clientMetadataUrl !== undefined &&
    revision.supports('client-id-metadata-documents') &&
    server.metadata.client_id_metadata_document_supported === true
  ) {
    report(input.onProgress, 'client_id', `Using the client ID metadata document ${input.clientMetadataUrl}`);
    return {
      source: 'metadata-document',
      issuer,
      clientId: input.clientMetadataUrl,
      tokenEndpointAuthMethod: 'none',
      redirectUris: input.registrationRedirectUris,
      registeredAt: input.now(),
    };
  }

  const stored = await input.store.getClient(issuer);
  if (stored !== undefined && usableRegistration(stored, input)) {
    report(
      input.onProgress,
      'client_id',
      `Re-using the client ID ${stored.clientId} registered at ${issuer}`,
    );
    return { ...stored, source: 'stored-registration' };
  }

  const registrationEndpoint = server.metadata.registration_endpoint;
  if (registrationEndpoint === undefined || !revision.supports('dynamic-client-registration')) {
    throw new PortcullisError(
      'no_client_id',
      `The authorization server ${issuer} offers no way to obtain a client ID` +
        `${revision.supports('client-id-metadata-documents') ? ' (no dynamic registration, and no usable client ID metadata document)' : ' (no dynamic registration)'}; ` +
        'register a client there and pass its client ID (--client-id, and --client-secret for a confidential client).',
      { issuer },
    );
  }
  const registrationKey = input.registrationMetadata.privateKey;
  if (registrationKey !== undefined) assertPrivateKeyJwtSupported(server, registrationKey);
  report(
    input.onProgress,
    'client_id',
    `Registering a client at ${registrationEndpoint}${registrationKey === undefined ? '' : ' (private_key_jwt)'}`,
  );
  const response = await registrationRequest(
    input.fetch,
    registrationEndpoint,
    registrationRequestBody({
      metadata: input.registrationMetadata,
      redirectUris: input.registrationRedirectUris,
      wantsRefreshTokens: input.wantsRefreshTokens,
      sendApplicationType: revision.supports('dcr-application-type'),
    }),
  );
  const registered = await processRegistrationResponse(response, registrationEndpoint);
  const tokenEndpointAuthMethod = chooseTokenEndpointAuthMethod({
    registered: registered.tokenEndpointAuthMethod,
    hasSecret: registered.clientSecret !== undefined,
    hasPrivateKey: registrationKey !== undefined,
    supported,
  });
  const client: StoredClient = {
    issuer,
    clientId: registered.clientId,
    ...(registered.clientSecret === undefined ? {} : { clientSecret: registered.clientSecret }),
    ...(registered.clientSecretExpiresAt === undefined
      ? {}
      : { clientSecretExpiresAt: registered.clientSecretExpiresAt }),
    tokenEndpointAuthMethod,
    ...(registrationKey === undefined ? {} : { keyThumbprint: registrationKey.thumbprint }),
    redirectUris:
      registered.redirectUris.length > 0 ? registered.redirectUris : input.registrationRedirectUris,
    registeredAt: input.now(),
  };
  await input.store.saveClient(client);
  report(input.onProgress, 'client_id', `Registered client ID ${client.clientId} at ${issuer}`);
  return { ...client, source: 'registered' };
}

/**
 * The configured private key a resolved or stored `private_key_jwt` client signs with: its pre-registered
 * credentials' key, or the registration key its registration was made with; undefined for other clients.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.2
 */
export function privateKeyFor(
  sources: {
    readonly preRegistered: PreRegisteredClients;
    readonly registrationMetadata: ClientRegistrationMetadata;
  },
  client: StoredClient,
): ClientAssertionKey | undefined {
  if (client.tokenEndpointAuthMethod !== 'private_key_jwt') return undefined;
  const preRegistered = sources.preRegistered.forIssuer(client.issuer);
  if (preRegistered !== undefined && preRegistered.clientId === client.clientId)
    return preRegistered.privateKey;
  const registrationKey = sources.registrationMetadata.privateKey;
  return registrationKey !== undefined && client.keyThumbprint === registrationKey.thumbprint
    ? registrationKey
    : undefined;
}

function usableRegistration(stored: StoredClient, input: ResolveClientInput): boolean {
  const secretExpired =
    stored.clientSecretExpiresAt !== undefined &&
    stored.clientSecretExpiresAt !== 0 &&
    stored.clientSecretExpiresAt * 1000 <= input.now();
  // The key a registration was made with, and no other: a registration made without a key is not re-used once one
  // is configured (it would never use it), nor one made with a key once that key is gone or replaced.
  const sameKey = stored.keyThumbprint === input.registrationMetadata.privateKey?.thumbprint;
  return !secretExpired && sameKey && redirectUriMatches(stored.redirectUris, input.redirectUri);
}
