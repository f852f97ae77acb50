import { Injectable } from '@nestjs/common';
import { isLocalRedirect, type OAuthClient } from '@portcullis/authorization';
import { PrismaClient } from '@portcullis/persistence';

/** What the consent page says about a client beyond its metadata, and how far the proxy trusts it. */
export interface ClientStanding {
  /** `preregistered` (by the operator), `dynamic` (RFC 7591, by anyone) or `metadata-document` (a URL). */
  readonly origin: 'preregistered' | 'dynamic' | 'metadata-document';
  /** Registered dynamically less than the configured age ago. */
  readonly recentlyRegistered: boolean;
  /** Every redirect URI is on this computer (http on a loopback host). */
  readonly localOnly: boolean;
  /**
   * Only clients the operator registered are trusted enough to be sent an error automatically; for anyone else
   * the user follows a link (RFC 9700 4.11.2: redirect automatically only to trusted redirect URIs).
   */
  readonly trusted: boolean;
}

/**
 * Reads how a client came to exist, for the consent page's warnings (details.md: warn when every redirect URI is
 * localhost; the issue: warn for recently registered clients) and for the open-redirect rule.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.11.2
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 */
@Injectable()
export class ClientTrust {
  constructor(private readonly prisma: PrismaClient) {}

  async standing(client: OAuthClient, recentAgeSeconds: number): Promise<ClientStanding> {
    const localOnly = client.redirectUris.length > 0 && client.redirectUris.every(isLocalRedirect);
    if (/^https?:\/\//.test(client.clientId)) {
      return { origin: 'metadata-document', recentlyRegistered: false, localOnly, trusted: false };
    }
    const row = await this.prisma.client.findUnique({
      where: { id: client.clientId },
      select: { origin: true, createdAt: true },
    });
    const origin = row?.origin === 'preregistered' ? 'preregistered' : 'dynamic';
    const recentlyRegistered =
      origin === 'dynamic' && (!row || Date.now() - row.createdAt.getTime() < recentAgeSeconds * 1000);
    return { origin, recentlyRegistered, localOnly, trusted: origin === 'preregistered' };
  }
}
