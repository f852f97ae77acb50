import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { constantTimeEqual, OAuthError } from '@portcullis/protocol';
import type { JsonValue } from '@portcullis/extensions';
import { ClientMetadataSchema } from '@portcullis/metadata';
import { getRevision } from '@portcullis/revisions';
import { generateClientSecret, hashClientSecret } from '../clients/client-secret.js';
import { ClientRepository, type ManagedRegistration } from '../clients/client.repository.js';
import type { OAuthClient } from '../clients/client.js';
import { SecurityEvents } from '../events/security-events.js';
import { GrantRepository, tokenHash } from '../tokens/grant.repository.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { presentedBearerToken, refusedBearer } from './bearer-credential.js';
import { establishedField, type RegistrationContext } from './registration-check.js';
import { REGISTRATION_CHECKS } from './registration.checks.js';

/**
 * The built-in grants a client may register itself for: the ones a person takes part in. Of the extension grants,
 * those without a person whose only proof is the client's own authentication (client credentials) would let anyone
 * mint tokens for a client they invented, so their clients are registered by the operator (`portcullis-admin
 * clients create --grant ...`), as MCP SEP-1046 has it
 * (https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx); an
 * extension opens the others (`selfRegistrableGrantTypes`, see `ExtensionRegistry.operatorGrantTypes()`).
 */
const BUILT_IN_GRANTS: readonly string[] = ['authorization_code', 'refresh_token'];
/**
 * The prefix of every client ID this endpoint issues: never `https://`, so never a client ID metadata URL.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-3
 */
export const DYNAMIC_CLIENT_ID_PREFIX = 'dcr_';

/**
 * Members a client may not choose: the server assigns them (RFC 7591 3.2.1), or does not support them
 * (`software_statement`, which RFC 7591 2.3 lets a server ignore).
 */
const NOT_REGISTRABLE: ReadonlySet<string> = new Set(['software_statement']);

/** The RFC 7591 2 members this server understands; any other member is dropped (RFC 7591 2: MUST ignore). */
const KNOWN_MEMBERS: readonly string[] = Object.keys(ClientMetadataSchema.shape).filter(
  (name) => !NOT_REGISTRABLE.has(name),
);

/**
 * A successful registration: the Client Information Response (RFC 7591 3.2.1), the secret in the clear exactly
 * once.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1
 */
export type RegistrationResponse = Record<string, JsonValue>;

/**
 * Dynamic client registration (RFC 7591): runs {@link REGISTRATION_CHECKS} on the client metadata, and only
 * when all pass stores the client, with a generated client ID and, for a confidential client, a generated secret
 * that is stored hashed and returned once.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3
 */
@Injectable()
export class RegistrationService {
  readonly #logger = new Logger('Registration');

  constructor(
    private readonly clients: ClientRepository,
    private readonly grants: GrantRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    private readonly events: SecurityEvents,
  ) {}

  #checked(body: unknown): RegistrationContext {
    const context: RegistrationContext = {
      body,
      revision: getRevision(this.options.revision),
      grantTypesSupported: [...BUILT_IN_GRANTS, ...this.options.extensions.grantTypes()],
      operatorGrants: this.options.extensions.operatorGrantTypes(),
      privateUseSchemes: this.options.allowedRedirectSchemes ?? [],
    };
    for (const check of REGISTRATION_CHECKS) check.run(context);
    return context;
  }

  /** The client configuration endpoint of a client (RFC 7592 2). */
  #configurationUri(clientId: string): string {
    return `${this.options.issuer}/register/${encodeURIComponent(clientId)}`;
  }

  /**
   * Registers a client from the request body; throws `invalid_redirect_uri` or `invalid_client_metadata`
   * (RFC 7591 3.2.2) without storing anything when the metadata is refused. The response carries a registration
   * access token (stored as its SHA-256) and the client configuration endpoint, for RFC 7592 management.
   */
  async register(body: unknown): Promise<RegistrationResponse> {
    const context = this.#checked(body);

    const metadata = registeredMetadata(context);
    const method = establishedField(context, 'tokenEndpointAuthMethod');
    // A shared secret only for the methods that use one: a public client has none, a private_key_jwt client its keys.
    const secret =
      method === 'client_secret_basic' || method === 'client_secret_post'
        ? generateClientSecret()
        : undefined;
    const clientId = `${DYNAMIC_CLIENT_ID_PREFIX}${randomBytes(18).toString('base64url')}`;
    const issuedAt = Math.floor(Date.now() / 1000);
    const { client_name: clientName, scope } = establishedField(context, 'metadata');
    const registrationToken = randomBytes(32).toString('base64url');
    await this.clients.create({
      clientId,
      ...(clientName !== undefined ? { clientName } : {}),
      redirectUris: establishedField(context, 'redirectUris'),
      grantTypes: establishedField(context, 'grantTypes'),
      responseTypes: establishedField(context, 'responseTypes'),
      tokenEndpointAuthMethod: method,
      applicationType: establishedField(context, 'applicationType'),
      ...(scope !== undefined ? { scope } : {}),
      ...(secret !== undefined ? { secretHash: hashClientSecret(secret) } : {}),
      origin: 'dynamic',
      metadata,
      registrationTokenHash: tokenHash(registrationToken),
    });
    await this.events.record('client.registered', {
      clientId,
      detail: { origin: 'dynamic', tokenEndpointAuthMethod: method },
    });
    this.#logger.log(`registered ${method === 'none' ? 'public' : 'confidential'} client ${clientId}`);
    return {
      client_id: clientId,
      client_id_issued_at: issuedAt,
      // RFC 7591 3.2.1: REQUIRED with a secret; 0 means it does not expire.
      ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      registration_access_token: registrationToken,
      registration_client_uri: this.#configurationUri(clientId),
      ...metadata,
    };
  }

  /**
   * The client's registration as it stands (RFC 7592 2.1), for the holder of its registration access token.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7592#section-2.1
   */
  async read(clientId: string, authorization: string | undefined): Promise<RegistrationResponse> {
    const { registration, token } = await this.#authorize(clientId, authorization);
    return this.#information(registration.client, registration.createdAt, token);
  }

  /**
   * Replaces the client's metadata (RFC 7592 2.2) after the same checks as a registration; `client_id` must be
   * sent and match, server-assigned members are ignored, and the authentication method cannot change (its secret,
   * or its absence, stays). Nothing changes when a check refuses.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7592#section-2.2
   */
  async update(
    clientId: string,
    authorization: string | undefined,
    body: unknown,
  ): Promise<RegistrationResponse> {
    const { registration, token } = await this.#authorize(clientId, authorization);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new OAuthError('invalid_client_metadata', 'the update must be a JSON object');
    }
    const sent = { ...(body as Record<string, unknown>) };
    if (sent['client_id'] !== clientId) {
      throw new OAuthError('invalid_client_metadata', 'client_id must be sent and be this client');
    }
    for (const assigned of SERVER_ASSIGNED) delete sent[assigned];
    const context = this.#checked(sent);
    const method = establishedField(context, 'tokenEndpointAuthMethod');
    if (method !== registration.client.tokenEndpointAuthMethod) {
      throw new OAuthError('invalid_client_metadata', 'token_endpoint_auth_method cannot change');
    }
    const metadata = registeredMetadata(context);
    const { client_name: clientName, scope } = establishedField(context, 'metadata');
    const updated = await this.clients.updateRegistration(clientId, {
      ...(clientName !== undefined ? { clientName } : {}),
      redirectUris: establishedField(context, 'redirectUris'),
      grantTypes: establishedField(context, 'grantTypes'),
      responseTypes: establishedField(context, 'responseTypes'),
      applicationType: establishedField(context, 'applicationType'),
      ...(scope !== undefined ? { scope } : {}),
      metadata,
    });
    if (!updated) throw refusedBearer(MISSING_TOKEN, 'the registration access token is invalid');
    this.#logger.log(`updated the registration of client ${clientId}`);
    return this.#information(updated, registration.createdAt, token);
  }

  /**
   * Deletes the client (RFC 7592 2.3): its grants and tokens are revoked, its consents and the client are gone.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7592#section-2.3
   */
  async delete(clientId: string, authorization: string | undefined): Promise<void> {
    await this.#authorize(clientId, authorization);
    await this.grants.revokeGrantsOf({ clientId });
    await this.clients.delete(clientId);
    await this.events.record('client.deleted', { clientId, detail: { by: 'client' } });
    this.#logger.log(`deleted the registration of client ${clientId}`);
  }

  #information(client: OAuthClient, createdAt: Date, token: string): RegistrationResponse {
    return {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(createdAt.getTime() / 1000),
      ...(client.secretHash !== undefined ? { client_secret_expires_at: 0 } : {}),
      registration_access_token: token,
      registration_client_uri: this.#configurationUri(client.clientId),
      ...(client.metadata as Record<string, JsonValue>),
    };
  }

  /**
   * The registration of `clientId` when `authorization` carries its registration access token (RFC 6750 2.1,
   * compared in constant time over SHA-256); otherwise 401 `invalid_token` with a Bearer challenge, the same for an
   * unknown client, so the answer tells nothing about which clients exist (RFC 7592 2). The refusal carries its
   * challenge; the exception filter writes it.
   */
  async #authorize(
    clientId: string,
    authorization: string | undefined,
  ): Promise<{ registration: ManagedRegistration; token: string }> {
    const token = presentedBearerToken(authorization);
    if (token === undefined) throw refusedBearer(MISSING_TOKEN, undefined);
    const registration = await this.clients.findManaged(clientId);
    // An unknown client is compared too, against a random hash, so both refusals take the same time.
    const expected = registration?.registrationTokenHash ?? tokenHash(randomBytes(32).toString('hex'));
    if (!constantTimeEqual(tokenHash(token), expected) || !registration) {
      throw refusedBearer(MISSING_TOKEN, 'the registration access token is invalid');
    }
    return { registration, token };
  }
}

const MISSING_TOKEN = 'a registration access token is required';

/** Members the server assigns: ignored in an update (RFC 7592 2.2). */
const SERVER_ASSIGNED = [
  'client_id',
  'client_secret',
  'client_id_issued_at',
  'client_secret_expires_at',
  'registration_access_token',
  'registration_client_uri',
];

/**
 * The metadata as registered: the known members as sent, with the values the checks settled (defaults applied,
 * duplicates removed). Unknown members and `software_statement` are dropped; server-assigned members
 * (`client_id`, `client_secret`, ...) are not client metadata and never copied.
 */
function registeredMetadata(context: RegistrationContext): Record<string, JsonValue> {
  const sent = establishedField(context, 'metadata') as Record<string, unknown>;
  const result: Record<string, JsonValue> = {};
  for (const name of KNOWN_MEMBERS) {
    if (Object.hasOwn(sent, name) && sent[name] !== undefined) result[name] = sent[name] as JsonValue;
  }
  result['redirect_uris'] = establishedField(context, 'redirectUris');
  result['grant_types'] = establishedField(context, 'grantTypes');
  result['response_types'] = establishedField(context, 'responseTypes');
  result['token_endpoint_auth_method'] = establishedField(context, 'tokenEndpointAuthMethod');
  result['application_type'] = establishedField(context, 'applicationType');
  return result;
}
