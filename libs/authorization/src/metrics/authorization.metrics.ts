import { Inject, Injectable, Optional } from '@nestjs/common';
import { counterIn, METRICS_REGISTRY } from '@portcullis/platform';
import type { Counter, Registry } from 'prom-client';

/**
 * What the authorization server counts for `/metrics`: tokens issued by grant type, reuses and replays detected, and
 * client ID metadata document fetches by outcome. Without the app's registry (the admin command line) it counts
 * nothing.
 */
@Injectable()
export class AuthorizationMetrics {
  readonly #issued: Counter<'grant_type'> | undefined;
  readonly #refreshReuse: Counter<string> | undefined;
  readonly #codeReplay: Counter<string> | undefined;
  readonly #documents: Counter<'outcome'> | undefined;

  constructor(@Optional() @Inject(METRICS_REGISTRY) registry?: Registry) {
    if (!registry) return;
    this.#issued = counterIn(
      registry,
      'portcullis_tokens_issued_total',
      'Token responses issued, by grant type (a response given again within the refresh reuse grace window is not counted)',
      ['grant_type'],
    );
    this.#refreshReuse = counterIn(
      registry,
      'portcullis_refresh_token_reuse_total',
      'Rotated-out refresh tokens presented again (RFC 9700 4.14.2): each revoked its family',
      [],
    );
    this.#codeReplay = counterIn(
      registry,
      'portcullis_authorization_code_replays_total',
      'Authorization codes redeemed a second time (RFC 6749 4.1.2): each revoked its grant',
      [],
    );
    this.#documents = counterIn(
      registry,
      'portcullis_client_metadata_document_fetches_total',
      'Client ID metadata document fetches, by outcome: ok, or why the document was refused',
      ['outcome'],
    );
  }

  tokenIssued(grantType: string): void {
    this.#issued?.inc({ grant_type: grantType });
  }

  refreshTokenReused(): void {
    this.#refreshReuse?.inc();
  }

  authorizationCodeReplayed(): void {
    this.#codeReplay?.inc();
  }

  metadataDocumentFetched(outcome: string): void {
    this.#documents?.inc({ outcome });
  }
}
