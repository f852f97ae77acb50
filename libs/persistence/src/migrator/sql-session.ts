import type { PGlite } from '@electric-sql/pglite';
import type { Client as PgClient } from 'pg';

/**
 * One database session (a single connection), the unit the migrator works on: an advisory lock and a
 * transaction both belong to a session, so they must not be spread over a pool.
 */
export interface SqlSession {
  /** Runs one parameterised statement and returns its rows. */
  query<Row extends Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements with no parameters (PostgreSQL's simple query protocol). */
  exec(script: string): Promise<void>;
}

/** Wraps a connected `pg` client. */
export function pgSession(client: PgClient): SqlSession {
  return {
    async query(text, params) {
      const result = await client.query(text, params as unknown[] | undefined);
      return result.rows;
    },
    async exec(script) {
      await client.query(script);
    },
  };
}

/** Wraps an embedded PGlite instance (always a single session). */
export function pgliteSession(db: PGlite): SqlSession {
  return {
    async query<Row>(text: string, params?: readonly unknown[]) {
      const result = await db.query<Row>(text, params as unknown[] | undefined);
      return result.rows;
    },
    async exec(script) {
      await db.exec(script);
    },
  };
}
