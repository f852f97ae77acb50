/**
 * The Protected Resource Metadata document (RFC 9728) of this resource.
 *
 * Rules kept here:
 * - RFC 9728 Section 2, MCP "Canonical Server URI", "Authorization Server Location" and 2026-07-28 "Refresh
 *   Tokens": `resource` is the canonical resource URI, the same string tokens must carry as `aud` (RFC 9728
 *   Section 3.3 lets clients compare it with the URL they use); `authorization_servers` lists at least one issuer;
 *   `scopes_supported` never lists `offline_access`; `bearer_methods_supported` is `["header"]`, the only method
 *   this resource accepts.
 * - RFC 9728 Section 2, RFC 9449 Section 7: with a proof-of-possession extension composed, the host writes
 *   `dpop_signing_alg_values_supported` (the extension's `algorithms`) and `dpop_bound_access_tokens_required`
 *   (whether it refuses unbound tokens); both are host fields no extension may set.
 * - Extensions add fields, never replace the host's (the registry refuses RFC 9728 member names, and the host's
 *   fields are written last).
 * - The document is checked against `ProtectedResourceMetadataSchema` at boot, so a resource cannot start while
 *   publishing an invalid one.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ProtectedResourceMetadataSchema, type ProtectedResourceMetadata } from '@portcullis/metadata';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { RESOURCE_SERVER_CONFIG } from '../resource-server.constants.js';

/**
 * Builds this resource's metadata document.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-2 RFC 9728 Section 2}
 */
@Injectable()
export class ProtectedResourceMetadataService implements OnModuleInit {
  constructor(@Inject(RESOURCE_SERVER_CONFIG) private readonly config: ResourceServerConfig) {}

  onModuleInit(): void {
    const result = ProtectedResourceMetadataSchema.safeParse(this.document());
    if (!result.success) {
      const [issue] = result.error.issues;
      throw new Error(`protected resource metadata is invalid: ${issue?.path.join('.')} ${issue?.message}`);
    }
  }

  /**
   * The document, built afresh (extension contributions may depend on their context).
   *
   * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3.2 RFC 9728 Section 3.2}
   */
  document(): ProtectedResourceMetadata {
    const { config } = this;
    const proof = config.extensions.resourceServerProofOfPossession();
    return {
      ...config.extensions.resourceMetadata({ resource: config.resource, revision: config.revision.id }),
      resource: config.resource,
      authorization_servers: [...config.authorizationServers],
      ...(config.scopesSupported.length > 0 ? { scopes_supported: [...config.scopesSupported] } : {}),
      bearer_methods_supported: ['header'],
      ...(config.resourceName ? { resource_name: config.resourceName } : {}),
      ...(proof
        ? {
            dpop_signing_alg_values_supported: [...proof.algorithms],
            dpop_bound_access_tokens_required: proof.required,
          }
        : {}),
    };
  }
}
