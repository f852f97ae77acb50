/**
 * The database's limit for a refresh: the statements our refresh token grant sends PostgreSQL for one refresh with
 * rotation, sent as plain SQL through `pg`, with no HTTP, no ORM and no signing. Mirrors, in order:
 * `GrantRepository.findRefreshFamily` (the refresh token, its grant and the grant's login session, one `SELECT`; a
 * family without `offline_access` ends with its login session) and `GrantRepository.rotateRefreshToken` (one
 * statement: the conditional `UPDATE` that only one concurrent use can win, RFC 9700 4.14.2, and only when it wins
 * the successor's and the access token's `INSERT`s, as data-modifying `WITH` queries), as
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
  /** The hash of the family's current refresh token (what the app stores: a SHA-256, base64url). */
  tokenHash: string;
}

/** The SQL refresh as a step per worker, on `workers` families of `clientId`'s grants. */
export interface SqlReference {
  readonly step: Step;
  /** How many statements one step sends, BEGIN and COMMIT included (it sends neither: each statement is atomic). */
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
    }>(
      `SELECT id, client_id, user_id, resource, scopes FROM grants
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
        tokenHash,
      });
    }
    return {
      statements: 2,
      step: (worker) => refreshOnce(pool, own(families, worker)),
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

async function refreshOnce(pool: pg.Pool, family: Family): Promise<void> {
  const found = await pool.query(
    `SELECT r.token_hash, r.grant_id, COALESCE(r.scopes, '{}') AS scopes, r.confirmation, r.expires_at,
            r.consumed_at, r.successor_hash, r.replay, r.created_at,
            g.client_id AS g_client_id, g.user_id AS g_user_id, g.resource AS g_resource,
            COALESCE(g.scopes, '{}') AS g_scopes, g.session_id AS g_session_id,
            g.offline_access AS g_offline_access, g.auth_time AS g_auth_time, COALESCE(g.amr, '{}') AS g_amr,
            g.authorization_request AS g_authorization_request, g.attachments AS g_attachments,
            g.absolute_expires_at AS g_absolute_expires_at, g.revoked_at AS g_revoked_at,
            g.created_at AS g_created_at,
            s.id AS s_id, s.expires_at AS s_expires_at, s.revoked_at AS s_revoked_at
       FROM refresh_tokens r
       JOIN grants g ON g.id = r.grant_id
       LEFT JOIN login_sessions s ON s.id = g.session_id
      WHERE r.token_hash = $1`,
    [family.tokenHash],
  );
  if (found.rowCount !== 1) throw new Error('the SQL reference lost its refresh token');
  const now = new Date();
  const successor = hash();
  const rotated = await pool.query<{ rotated: number }>(
    `WITH consumed AS (
       UPDATE refresh_tokens r
          SET consumed_at = $1::timestamptz, successor_hash = $2::text, replay = $3::text
        WHERE r.token_hash = $4 AND r.consumed_at IS NULL AND r.expires_at > $5::timestamptz
          AND EXISTS (SELECT 1 FROM grants g WHERE g.id = r.grant_id AND g.revoked_at IS NULL)
       RETURNING r.grant_id
     ), successor AS (
       INSERT INTO refresh_tokens (token_hash, grant_id, scopes, expires_at, confirmation)
       SELECT $6::text, c.grant_id, $7::text[], $8::timestamptz, $9::jsonb FROM consumed c
       RETURNING 1
     ), access AS (
       INSERT INTO access_tokens (jti, grant_id, client_id, subject, audience, scopes, expires_at)
       SELECT $10::text, c.grant_id, $11::text, $12::text, $13::text, $14::text[], $15::timestamptz
         FROM consumed c
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM consumed)::int AS rotated`,
    [
      now,
      null,
      null,
      family.tokenHash,
      now,
      successor,
      family.scopes,
      new Date(now.getTime() + 86_400_000),
      null,
      randomUUID(),
      family.clientId,
      family.userId,
      family.resource,
      family.scopes,
      new Date(now.getTime() + 300_000),
    ],
  );
  if (rotated.rows[0]?.rotated !== 1)
    throw new Error('the SQL reference could not consume its refresh token');
  family.tokenHash = successor;
}
