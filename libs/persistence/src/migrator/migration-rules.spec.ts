import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import {
  contractStatements,
  migrationRuleProblems,
  readMigrationPaths,
  type ContractMigration,
  type ReleaseRecord,
} from './migration-rules.js';
import { migrationChecksum, type MigrationFile } from './migrations.js';

const changes = (sql: string) => contractStatements(sql).map(({ change }) => change);

describe('contract statements in a migration', () => {
  it('finds none in what only expands: new tables with their indexes and keys, nullable or defaulted columns, plain indexes, relaxed columns, backfills', () => {
    expect(
      changes(`
        -- CreateTable (a DROP TABLE "users" in a comment is no statement)
        CREATE TABLE "connections" ("id" UUID NOT NULL, "user_id" UUID NOT NULL, CONSTRAINT "connections_pkey" PRIMARY KEY ("id"));
        CREATE UNIQUE INDEX "connections_user_id_key" ON "connections"("user_id");
        ALTER TABLE "connections" ADD CONSTRAINT "connections_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE;
        /* a block /* nested */ comment: ALTER TABLE "users" DROP COLUMN "name" */
        ALTER TABLE "upstream_tokens" ADD COLUMN "provider" TEXT;
        ALTER TABLE "refresh_tokens" ADD COLUMN "replay" TEXT, ADD COLUMN "successor_hash" TEXT;
        ALTER TABLE "clients" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'public';
        CREATE INDEX CONCURRENTLY "grants_user_id_idx" ON "grants"("user_id");
        ALTER TABLE "users" ALTER COLUMN "email" DROP NOT NULL, ALTER COLUMN "name" SET DEFAULT '';
        UPDATE "signing_keys" SET "activates_at" = "created_at" WHERE "activates_at" IS NULL;
        INSERT INTO "security_events" ("type", "detail") VALUES ('note', 'DROP TABLE users; ALTER TABLE x RENAME TO y');
      `),
    ).toEqual([]);
  });

  it.each([
    ['DROP TABLE "notes";', 'drops table "notes"'],
    ['DROP TABLE IF EXISTS public.notes CASCADE;', 'drops table "notes"'],
    ['DROP INDEX CONCURRENTLY IF EXISTS "grants_user_id_idx";', 'drops index "grants_user_id_idx"'],
    ['DROP TYPE "GrantStatus";', 'drops type "GrantStatus"'],
    [
      'ALTER TABLE "upstream_states" DROP COLUMN "approved_scopes";',
      'drops column "upstream_states"."approved_scopes"',
    ],
    ['alter table upstream_states drop approved_scopes;', 'drops column "upstream_states"."approved_scopes"'],
    [
      'ALTER TABLE "grants" DROP CONSTRAINT "grants_client_fkey";',
      'drops constraint "grants_client_fkey" of "grants"',
    ],
    ['ALTER TABLE "users" RENAME COLUMN "name" TO "display_name";', 'renames column "users"."name"'],
    ['ALTER TABLE "users" RENAME TO "people";', 'renames table "users" to "people"'],
    ['ALTER INDEX "users_key" RENAME TO "people_key";', 'renames a index'],
    ['ALTER TABLE "notes" ALTER COLUMN "title" TYPE VARCHAR(200);', 'changes the type of "notes"."title"'],
    ['ALTER TABLE "notes" ALTER "title" SET DATA TYPE TEXT;', 'changes the type of "notes"."title"'],
    [
      'ALTER TABLE "signing_keys" ALTER COLUMN "activates_at" SET NOT NULL;',
      'makes "signing_keys"."activates_at" NOT NULL',
    ],
    [
      'ALTER TABLE "clients" ALTER COLUMN "created_at" DROP DEFAULT;',
      'drops the default of "clients"."created_at"',
    ],
    [
      'ALTER TABLE "clients" ADD COLUMN "kind" TEXT NOT NULL;',
      'adds "clients"."kind" NOT NULL without a default (the previous release inserts rows without it)',
    ],
    [
      'ALTER TABLE "users" ADD CONSTRAINT "users_email_check" CHECK (email LIKE \'%@%\') NOT VALID;',
      'adds a constraint to "users", which the previous release writes',
    ],
    [
      'CREATE UNIQUE INDEX "users_email_key" ON "users"("email");',
      'adds a unique index to "users", which the previous release writes',
    ],
    ['TRUNCATE TABLE "used_jwt_ids";', 'empties table "used_jwt_ids"'],
  ])('finds %s', (sql, change) => {
    expect(changes(sql)).toEqual([change]);
  });

  it('reads a DO block and what it EXECUTEs, naming each change once', () => {
    const found = contractStatements(`
      DO $$
      DECLARE other_table text;
      BEGIN
        FOREACH other_table IN ARRAY ARRAY['notes'] LOOP
          IF to_regclass(quote_ident(other_table)) IS NOT NULL THEN
            RAISE NOTICE 'the table is moved; nothing is lost';
            EXECUTE format('DROP TABLE %I', other_table);
          END IF;
        END LOOP;
        ALTER TABLE "users" DROP COLUMN "legacy";
      END $$;
    `);
    expect(found.map(({ change }) => change)).toEqual([
      'drops table %I (in a procedural body)',
      'drops column "users"."legacy" (in a procedural body)',
    ]);
    expect(found[1]!.statement).toBe('ALTER TABLE "users" DROP COLUMN "legacy"');
  });

  it('flags only the actions of an ALTER TABLE that contract', () => {
    expect(
      changes(
        'ALTER TABLE "users" ADD COLUMN "nickname" TEXT, DROP COLUMN "name", ALTER COLUMN "email" DROP NOT NULL;',
      ),
    ).toEqual(['drops column "users"."name"']);
  });

  it('finds the contract statements of migrations shipped before the rule was checked', async () => {
    const shipped = await readMigrationPaths();
    expect(changes(shipped.get('upstream/20261125010000_upstream_state_without_scopes')!.script)).toEqual([
      'drops column "upstream_states"."approved_scopes"',
    ]);
    expect(changes(shipped.get('authorization/20261128000000_signing_key_activation')!.script)).toEqual([
      'makes "signing_keys"."activates_at" NOT NULL',
    ]);
  });
});

describe('the migrations shipped against the previous release', () => {
  const migration = (name: string, script: string): MigrationFile => ({
    name,
    script,
    checksum: migrationChecksum(script),
  });
  const released = migration('20260101000000_notes', 'CREATE TABLE "notes" ("id" UUID NOT NULL);');
  const release: ReleaseRecord = {
    version: '0.3.0',
    commit: 'a'.repeat(40),
    migrations: { 'notes/20260101000000_notes': released.checksum },
  };
  const shippedWith = (...more: [string, MigrationFile][]) =>
    new Map<string, MigrationFile>([['notes/20260101000000_notes', released], ...more]);
  const dropTitle = migration('20260201000000_drop_title', 'ALTER TABLE "notes" DROP COLUMN "title";');

  it('keep the rule when every newer migration expands', () => {
    const expand = migration('20260201000000_note_tags', 'ALTER TABLE "notes" ADD COLUMN "tags" TEXT[];');
    expect(
      migrationRuleProblems(release, shippedWith(['notes/20260201000000_note_tags', expand]), []),
    ).toEqual([]);
  });

  it('refuse a released migration changed or gone: a database of that release applied it', () => {
    const edited = migration('20260101000000_notes', 'CREATE TABLE "notes" ("id" UUID);');
    expect(migrationRuleProblems(release, new Map([['notes/20260101000000_notes', edited]]), [])).toEqual([
      'notes/20260101000000_notes: shipped in 0.3.0, and changed since (add a new migration instead)',
    ]);
    expect(migrationRuleProblems(release, new Map(), [])).toEqual([
      'notes/20260101000000_notes: shipped in 0.3.0, and no longer shipped',
    ]);
  });

  it('refuse a newer migration that contracts unless it is listed as a contract migration', () => {
    const shipped = shippedWith(['notes/20260201000000_drop_title', dropTitle]);
    expect(migrationRuleProblems(release, shipped, [])).toEqual([
      'notes/20260201000000_drop_title: newer than 0.3.0, whose apps still run on it during a rolling upgrade, and ' +
        'it drops column "notes"."title"; expand instead, or list it as a contract migration once a release no ' +
        'longer uses what it takes away',
    ]);
    const listed: ContractMigration = {
      migration: 'notes/20260201000000_drop_title',
      reason: 'notes carry a summary since 0.2.0; no release reads the title any longer',
      codeStoppedUsingIn: '0.2.0',
    };
    expect(migrationRuleProblems(release, shipped, [listed])).toEqual([]);
    expect(migrationRuleProblems(release, shipped, [{ ...listed, codeStoppedUsingIn: '0.3.0' }])).toEqual([]);
  });

  it('refuse a contract migration whose code stopped using what it drops after the previous release', () => {
    const shipped = shippedWith(['notes/20260201000000_drop_title', dropTitle]);
    const listed: ContractMigration = {
      migration: 'notes/20260201000000_drop_title',
      reason: 'the title is the summary now',
      codeStoppedUsingIn: '0.4.0',
    };
    expect(migrationRuleProblems(release, shipped, [listed])).toEqual([
      'contract migration notes/20260201000000_drop_title: the code stopped using what it takes away in 0.4.0, ' +
        'after 0.3.0, whose apps still run on it during a rolling upgrade; ship it in the release after 0.4.0',
    ]);
    expect(
      migrationRuleProblems(release, shipped, [
        { ...listed, reason: '', codeStoppedUsingIn: 'soon' },
        {
          migration: 'notes/20260301000000_missing',
          reason: 'a migration that is not there',
          codeStoppedUsingIn: '0.1.0',
        },
      ]),
    ).toEqual([
      'contract migration notes/20260201000000_drop_title: no reason',
      'contract migration notes/20260201000000_drop_title: codeStoppedUsingIn is not a version',
      'contract migration notes/20260301000000_missing: no such migration',
    ]);
  });

  it('are kept by this tree: the previous release recorded, every newer migration an expand or a listed contract', async () => {
    const release = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../../../../docker/upgrade/previous-release.json', import.meta.url)),
        'utf8',
      ),
    ) as ReleaseRecord;
    const { migrations: contracts } = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../prisma/contract-migrations.json', import.meta.url)), 'utf8'),
    ) as { migrations: ContractMigration[] };
    const shipped = await readMigrationPaths();

    expect(release.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(release.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(release.migrations).length).toBeGreaterThan(0);
    expect(migrationRuleProblems(release, shipped, contracts)).toEqual([]);
  });
});
