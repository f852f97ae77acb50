/**
 * The database's limit for a refresh: the statements our refresh token grant sends PostgreSQL for one refresh with
 * rotation, sent as plain SQL through `pg`, with no HTTP, no ORM and no signing. Mirrors, in order:
 * `GrantRepository.findRefreshToken` and `findGrant`, `SessionRepository.find` (a family without `offline_access`
 * ends with its login session), then in one transaction `consumeRefreshToken` (the conditional `UPDATE` that only one
 * concurrent use can win, RFC 9700 4.14.2), `recordAccessToken` and `createRefreshToken` (the successor), as
 * libs/authorization/src/grants/refresh-token.grant.ts runs them. A pool the size of the app's database pool, on the
 * app's own database, its families the app's grants, each given a refresh token chain of its own.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { own } from './compare.js';
import type { Step } from './load.js';

/** The app's database pool size when DATABASE_POOL_SIZE is not set (libs/platform/src/config.ts). */
export const APP_DATABASE_POOL_SIZE = 10;

interface Family {
  readonly grantId: string;
  readonly clientId: string;
  readonly userId: string;
  readonly resource: string;
  readonly scopes: string[];
  readonly sessionId: string | null;
  readonly offlineAccess: boolean;
  /** The hash of the family's current refresh token (what the app stores: a SHA-256, base64url). */
  tokenHash: string;
}

/** The SQL refresh as a step per worker, on `workers` families of `clientId`'s grants. */
export interface SqlReference {
  readonly step: Step;
  /** How many statements one step sends, BEGIN and COMMIT included. */
  readonly statements: number;
  close(): Promise<void>;
}

const hash = () => randomBytes(32).toString('base64url');

export async function startSqlReference(
  databaseUrl: string,
  clientId: string,
  workers: number,
  poolSize = APP_DATABASE_POOL_SIZE,
): Promise<SqlReference> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  pool.on('error', () => undefined);
  try {
    const grants = await pool.query<{
      id: string;
      client_id: string;
      user_id: string;
      resource: string;
      scopes: string[];
      session_id: string | null;
      offline_access: boolean;
    }>(
      `SELECT id, client_id, user_id, resource, scopes, session_id, offline_access FROM grants
        WHERE client_id = $1 AND revoked_at IS NULL ORDER BY created_at LIMIT $2`,
      [clientId, workers],
    );
    if (grants.rows.length < workers)
      throw new Error(`the SQL reference needs ${workers} grants of the client, found ${grants.rows.length}`);
    const families: Family[] = [];
    for (const row of grants.rows) {
      const tokenHash = hash();
      await pool.query(
        `INSERT INTO refresh_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, now() + interval '1 day')`,
        [tokenHash, row.id, row.scopes],
      );
      families.push({
        grantId: row.id,
        clientId: row.client_id,
        userId: row.user_id,
        resource: row.resource,
        scopes: row.scopes,
        sessionId: row.session_id,
        offlineAccess: row.offline_access,
        tokenHash,
      });
    }
    const withSession = families.some((family) => !family.offlineAccess && family.sessionId !== null);
    return {
      statements: withSession ? 8 : 7,
      step: (worker) => refreshOnce(pool, own(families, worker)),
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

async function refreshOnce(pool: pg.Pool, family: Family): Promise<void> {
  const found = await pool.query('SELECT * FROM refresh_tokens WHERE token_hash = $1', [family.tokenHash]);
  if (found.rowCount !== 1) throw new Error('the SQL reference lost its refresh token');
  await pool.query('SELECT * FROM grants WHERE id = $1', [family.grantId]);
  if (!family.offlineAccess && family.sessionId !== null)
    await pool.query('SELECT * FROM login_sessions WHERE id = $1', [family.sessionId]);
  const now = new Date();
  const successor = hash();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const consumed = await client.query(
      `UPDATE refresh_tokens r SET consumed_at = $1
        WHERE r.token_hash = $2 AND r.consumed_at IS NULL AND r.expires_at > $1
          AND EXISTS (SELECT 1 FROM grants g WHERE g.id = r.grant_id AND g.revoked_at IS NULL)`,
      [now, family.tokenHash],
    );
    if (consumed.rowCount !== 1) throw new Error('the SQL reference could not consume its refresh token');
    await client.query(
      `INSERT INTO access_tokens (jti, grant_id, client_id, subject, audience, scopes, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        randomUUID(),
        family.grantId,
        family.clientId,
        family.userId,
        family.resource,
        family.scopes,
        new Date(now.getTime() + 300_000),
      ],
    );
    await client.query(
      `INSERT INTO refresh_tokens (token_hash, grant_id, scopes, expires_at, confirmation)
       VALUES ($1, $2, $3, $4, NULL)`,
      [successor, family.grantId, family.scopes, new Date(now.getTime() + 86_400_000)],
    );
    await client.query('COMMIT');
    family.tokenHash = successor;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
