import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { JsonValue } from '@portcullis/extensions';
import { ClientMetadataSchema } from '@portcullis/metadata';
import { getRevision } from '@portcullis/revisions';
import { generateClientSecret, hashClientSecret } from '../clients/client-secret.js';
import { ClientRepository } from '../clients/client.repository.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { establishedField, type RegistrationContext } from './registration-check.js';
import { REGISTRATION_CHECKS } from './registration.checks.js';

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
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  /**
   * Registers a client from the request body; throws `invalid_redirect_uri` or `invalid_client_metadata`
   * (RFC 7591 3.2.2) without storing anything when the metadata is refused.
   */
  async register(body: unknown): Promise<RegistrationResponse> {
    const context: RegistrationContext = {
      body,
      revision: getRevision(this.options.revision),
      grantTypesSupported: ['authorization_code', 'refresh_token', ...this.options.extensions.grantTypes()],
    };
    for (const check of REGISTRATION_CHECKS) check.run(context);

    const metadata = registeredMetadata(context);
    const method = establishedField(context, 'tokenEndpointAuthMethod');
    const secret = method === 'none' ? undefined : generateClientSecret();
    const clientId = `${DYNAMIC_CLIENT_ID_PREFIX}${randomBytes(18).toString('base64url')}`;
    const issuedAt = Math.floor(Date.now() / 1000);
    const { client_name: clientName, scope } = establishedField(context, 'metadata');
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
    });
    this.#logger.log(`registered ${method === 'none' ? 'public' : 'confidential'} client ${clientId}`);
    return {
      client_id: clientId,
      client_id_issued_at: issuedAt,
      // RFC 7591 3.2.1: REQUIRED with a secret; 0 means it does not expire.
      ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...metadata,
    };
  }
}

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
