/**
 * The Protected Resource Metadata document (RFC 9728) of this resource, as the core builds it
 * (`metadata/protected-resource-metadata.ts`), checked when the module starts so a resource cannot boot while
 * publishing an invalid one.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { ProtectedResourceMetadata } from '@portcullis/metadata';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { assertValidMetadata, protectedResourceMetadata } from '../metadata/protected-resource-metadata.js';
import { RESOURCE_SERVER_CONFIG } from './resource-server.constants.js';

/**
 * Builds this resource's metadata document.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-2 RFC 9728 Section 2}
 */
@Injectable()
export class ProtectedResourceMetadataService implements OnModuleInit {
  constructor(@Inject(RESOURCE_SERVER_CONFIG) private readonly config: ResourceServerConfig) {}

  onModuleInit(): void {
    assertValidMetadata(this.config);
  }

  /**
   * The document, built afresh (extension contributions may depend on their context).
   *
   * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3.2 RFC 9728 Section 3.2}
   */
  document(): ProtectedResourceMetadata {
    return protectedResourceMetadata(this.config);
  }
}
