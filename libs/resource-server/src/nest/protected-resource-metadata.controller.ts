/**
 * Serves the metadata document at the path-inserted well-known URL of the resource (RFC 9728 Section 3.1):
 * resource `https://host/mcp` -> `https://host/.well-known/oauth-protected-resource/mcp`, with the headers the core
 * gives it (any origin may read it; preflights answered). The root well-known URL is left to the host app, whose
 * other routes may live there; `createResourceServer().metadataHandler()` serves both.
 */
import {
  applyDecorators,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Options,
  type Type,
} from '@nestjs/common';
import type { ProtectedResourceMetadata } from '@portcullis/metadata';
import {
  METADATA_PREFLIGHT_HEADERS,
  METADATA_RESPONSE_HEADERS,
} from '../metadata/protected-resource-metadata.js';
import { ProtectedResourceMetadataService } from './protected-resource-metadata.service.js';

const headers = (fields: Readonly<Record<string, string>>) =>
  applyDecorators(...Object.entries(fields).map(([name, value]) => Header(name, value)));

/**
 * A controller serving the metadata document at `path`. A class per path, because Nest routes are declared with
 * decorators and the path comes from configuration.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3.1 RFC 9728 Section 3.1}
 */
export function createProtectedResourceMetadataController(path: string): Type<unknown> {
  @Controller()
  class ProtectedResourceMetadataController {
    constructor(
      @Inject(ProtectedResourceMetadataService) private readonly metadata: ProtectedResourceMetadataService,
    ) {}

    @Get(path)
    @headers(METADATA_RESPONSE_HEADERS)
    document(): ProtectedResourceMetadata {
      return this.metadata.document();
    }

    @Options(path)
    @HttpCode(204)
    @headers(METADATA_PREFLIGHT_HEADERS)
    preflight(): void {
      // The headers above are the whole answer to a preflight.
    }
  }
  return ProtectedResourceMetadataController;
}
