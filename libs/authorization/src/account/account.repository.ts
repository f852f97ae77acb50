import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@portcullis/persistence';
import { GrantRepository } from '../tokens/grant.repository.js';

/** One client a person approved, as the account page lists it. */
export interface ConnectedApp {
  readonly clientId: string;
  /** The registered name; absent for a client known only by its client ID metadata document. */
  readonly clientName?: string;
  /** `preregistered`, `dynamic`, or `metadata-document` for a client ID that is a URL. */
  readonly registration: string;
  readonly resource: string;
  readonly scopes: readonly string[];
  /** When the person first approved it. */
  readonly approvedAt: Date;
  /** When it was last given a token under a live grant; absent when none is live. */
  readonly lastUsedAt?: Date;
}

interface Row {
  client_id: string;
  client_name: string | null;
  origin: string | null;
  resource: string;
  scopes: string[];
  approved_at: Date;
  last_used_at: Date | null;
}

/** What the account page reads and changes: a person's consents, and the grants that came of them. */
@Injectable()
export class AccountRepository {
  constructor(
    private readonly work: UnitOfWork,
    private readonly grants: GrantRepository,
  ) {}

  /** Every client `userId` approved, with what for and when last used, most recently approved first. */
  async connectedApps(userId: string): Promise<ConnectedApp[]> {
    // Last used: the newest token issued under a live grant of the consent (its refresh tokens rotate on every use,
    // and the rows of a live grant are kept), reached through the indexed grant ids.
    const rows = await this.work.db.$queryRaw<Row[]>`
      SELECT c.client_id, cl.client_name, cl.origin, c.resource, c.scopes, c.created_at AS approved_at,
             (SELECT max(greatest(g.created_at,
                                  (SELECT max(r.created_at) FROM refresh_tokens r WHERE r.grant_id = g.id),
                                  (SELECT max(a.created_at) FROM access_tokens a WHERE a.grant_id = g.id)))
                FROM grants g
               WHERE g.user_id = c.user_id AND g.client_id = c.client_id AND g.resource = c.resource
                 AND g.revoked_at IS NULL) AS last_used_at
        FROM consents c LEFT JOIN clients cl ON cl.client_id = c.client_id
       WHERE c.user_id = ${userId}::uuid
       ORDER BY c.created_at DESC`;
    return rows.map((row) => ({
      clientId: row.client_id,
      ...(row.client_name ? { clientName: row.client_name } : {}),
      registration: row.origin ?? (/^https?:\/\//.test(row.client_id) ? 'metadata-document' : 'unknown'),
      resource: row.resource,
      scopes: row.scopes,
      approvedAt: row.approved_at,
      ...(row.last_used_at ? { lastUsedAt: row.last_used_at } : {}),
    }));
  }

  /**
   * Forgets a client for a person and one resource, in one transaction: every grant of theirs to it for that resource
   * is revoked (its codes and refresh tokens can no longer be used, its access tokens introspect inactive) and the
   * consent is gone, so the client's next authorization for the resource asks again. Returns whether there was
   * anything to forget.
   */
  async forget(userId: string, clientId: string, resource: string, now = new Date()): Promise<boolean> {
    return this.work.run(async () => {
      const { count } = await this.work.db.consent.deleteMany({ where: { userId, clientId, resource } });
      const grants = await this.work.db.authorizationGrant.findMany({
        where: { userId, clientId, resource, revokedAt: null },
        select: { id: true },
      });
      for (const { id } of grants) await this.grants.revokeGrant(id, now);
      return count > 0 || grants.length > 0;
    });
  }
}
