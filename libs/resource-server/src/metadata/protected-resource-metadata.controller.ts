/**
 * Serves the metadata document at the path-inserted well-known URL of the resource (RFC 9728 Section 3.1):
 * resource `https://host/mcp` -> `https://host/.well-known/oauth-protected-resource/mcp`. The root well-known URL
 * is not served: it would describe the resource `https://host`, which this is not (RFC 9728 Section 3.3).
 *
 * The document is public and fetched by browser-based clients too, so it allows any origin (RFC 9728 Section 3
 * puts no access control on it, and it says nothing a request could not learn from the 401 challenge) and answers
 * CORS preflights, which the `MCP-Protocol-Version` header some clients send triggers. The configured browser
 * origins (`browserOrigins`) govern every other route, not this one.
 */
import { Controller, Get, Header, HttpCode, Inject, Options, type Type } from '@nestjs/common';
import type { ProtectedResourceMetadata } from '@portcullis/metadata';
import { CORS_EXPOSED_HEADERS } from '../http/browser-cors.hook.js';
import { ProtectedResourceMetadataService } from './protected-resource-metadata.service.js';

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
    @Header('access-control-allow-origin', '*')
    @Header('access-control-expose-headers', CORS_EXPOSED_HEADERS)
    @Header('cache-control', 'public, max-age=300')
    document(): ProtectedResourceMetadata {
      return this.metadata.document();
    }

    @Options(path)
    @HttpCode(204)
    @Header('access-control-allow-origin', '*')
    @Header('access-control-allow-methods', 'GET, OPTIONS')
    @Header('access-control-allow-headers', '*')
    @Header('access-control-max-age', '86400')
    preflight(): void {
      // The headers above are the whole answer to a preflight.
    }
  }
  return ProtectedResourceMetadataController;
}
