import { Inject, Injectable } from '@nestjs/common';
import type { JsonValue } from '@portcullis/extensions';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { CLIENT_ASSERTION_ALGORITHMS } from '../clients/client-assertions/client-assertion.verifier.js';
import { TOKEN_GRANTS, type TokenGrant } from '../grants/token-grant.js';
import { SIGNING_ALGORITHM } from '../keys/signing-keys.service.js';
import { ResourceRegistry, SERVER_SCOPES } from '../resources/resource-registry.js';

/** Fields a feature module adds to the metadata (registration, introspection, ...), in the host's own name. */
export type MetadataFields = Readonly<Record<string, JsonValue>>;

/**
 * The authorization server metadata (RFC 8414 section 2), served identically as OpenID Provider metadata
 * (OIDC Discovery section 3). `issuer` is the configured issuer byte for byte; endpoints hang under it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-3 (authorization_response_iss_parameter_supported)
 */
@Injectable()
export class MetadataService {
  readonly #additions: MetadataFields[] = [];

  constructor(
    private readonly resources: ResourceRegistry,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    @Inject(TOKEN_GRANTS) private readonly grants: readonly TokenGrant[],
  ) {}

  /** Adds host fields (a feature module's endpoints); extensions contribute through the registry instead. */
  contribute(fields: MetadataFields): void {
    this.#additions.push(fields);
  }

  /** The absolute URL of an endpoint under the issuer. */
  endpoint(name: string): string {
    return `${this.options.issuer.replace(/\/$/, '')}/${name}`;
  }

  document(): Record<string, JsonValue> {
    const { issuer, revision, extensions } = this.options;
    const resourceScopes = this.resources.list().flatMap((resource) => resource.scopesSupported);
    // Every grant the token endpoint takes: the built-in ones, the extensions', the app's own.
    const grantTypes = this.grants.map((grant) => grant.grantType);
    // The registry keeps the RFC 8414 names from extensions, not every field this host publishes (OpenID Connect
    // Discovery's, `contribute()`'s): extension fields go first so that none can shadow one of the host's.
    return {
      ...extensions.authorizationServerMetadata({ issuer, revision }),
      issuer,
      authorization_endpoint: this.endpoint('authorize'),
      token_endpoint: this.endpoint('token'),
      jwks_uri: this.endpoint('jwks'),
      userinfo_endpoint: this.endpoint('userinfo'),
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: [...new Set(grantTypes)],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: [
        'none',
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
      // RFC 8414 2: the algorithms a private_key_jwt client assertion may use (asymmetric only, RFC 7523 3).
      token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      // RFC 7591 3: only while registration is enabled (deprecated under 2026-07-28; see docs/authorization-server.md).
      ...(this.options.registration?.enabled ? { registration_endpoint: this.endpoint('register') } : {}),
      // RFC 7662 2 (confidential clients only) and RFC 7009 2 (public clients too, by client_id).
      introspection_endpoint: this.endpoint('introspect'),
      introspection_endpoint_auth_methods_supported: [
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
      introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      revocation_endpoint: this.endpoint('revoke'),
      revocation_endpoint_auth_methods_supported: [
        'none',
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
      revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      scopes_supported: [...new Set([...SERVER_SCOPES, ...resourceScopes])],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
      // OIDC Core 5.4: `profile` grants name and preferred_username, `email` email and email_verified.
      claims_supported: [
        'sub',
        'iss',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'nonce',
        'name',
        'preferred_username',
        'email',
        'email_verified',
      ],
      prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
      authorization_response_iss_parameter_supported: true,
      // draft-ietf-oauth-client-id-metadata-document: an https URL may serve as client_id.
      ...(this.options.clientIdMetadataDocuments?.enabled
        ? { client_id_metadata_document_supported: true }
        : {}),
      ...Object.assign({}, ...this.#additions),
    };
  }
}
