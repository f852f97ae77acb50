import { Injectable } from '@nestjs/common';
import type { ClientSource, OAuthClient } from './client.js';
import { ClientRepository } from './client.repository.js';
import { ClientIdMetadataDocumentSource } from './metadata-documents/client-id-metadata-document.source.js';

/**
 * The one client lookup of `/authorize`, `/token` and consent. A `client_id` that is a Client Identifier URL
 * goes to the client ID metadata documents (when they are on) and nowhere else; any other `client_id` to the
 * database of pre-registered and dynamically registered clients. An issued `client_id` never starts with
 * `https://`, so the two never compete for one identifier.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-3
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.2
 */
@Injectable()
export class ClientResolver implements ClientSource {
  constructor(
    private readonly registered: ClientRepository,
    private readonly metadataDocuments: ClientIdMetadataDocumentSource,
  ) {}

  find(clientId: string): Promise<OAuthClient | undefined> {
    return this.metadataDocuments.handles(clientId)
      ? this.metadataDocuments.find(clientId)
      : this.registered.find(clientId);
  }
}
