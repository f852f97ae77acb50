import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import {
  compareSchemas,
  expectedSchemaFromPrisma,
  findSchemaDrift,
  migrate,
  migrationChecksum,
  readDatabaseSchema,
  readMigrations,
  type SchemaDescription,
} from '@portcullis/persistence';
import { startDatabase, type TestDatabase } from '@portcullis/testing';

describe('the schema drift check', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await startDatabase();
  });

  afterAll(async () => {
    await db?.stop();
  });

  /** Drift after `ddl`, rolled back afterwards so every test sees the database as migrated. */
  const driftAfter = (ddl: string): Promise<string[]> =>
    db.database.withSession(async (session) => {
      await session.exec('BEGIN');
      try {
        await session.exec(ddl);
        return await findSchemaDrift(session);
      } finally {
        await session.exec('ROLLBACK');
      }
    });

  it('finds that the shipped migrations produce exactly the Prisma schema', async () => {
    expect(await db.database.withSession((session) => findSchemaDrift(session))).toEqual([]);
  });

  it('reports a column the database leaves nullable that the schema requires', async () => {
    expect(await driftAfter('ALTER TABLE users ALTER COLUMN username DROP NOT NULL')).toEqual([
      'users.username: nullable in database, required in schema',
    ]);
  });

  it('reports an index the schema declares and the database lacks', async () => {
    expect(await driftAfter('DROP INDEX clients_origin_idx')).toEqual([
      'index clients_origin_idx: missing in database',
    ]);
  });

  it('reports a default that differs from the schema', async () => {
    expect(await driftAfter(`ALTER TABLE clients ALTER COLUMN origin SET DEFAULT 'dynamic'`)).toEqual([
      `clients.origin: default 'dynamic'::text in database, 'preregistered' in schema`,
    ]);
  });

  it('reports a missing list default and a column type that differs', async () => {
    const ddl = `ALTER TABLE clients ALTER COLUMN grant_types DROP DEFAULT;
                 ALTER TABLE clients ALTER COLUMN created_at TYPE timestamp(3)`;
    expect(await driftAfter(ddl)).toEqual([
      `clients.grant_types: default none in database, ARRAY['authorization_code'] in schema`,
      'clients.created_at: type timestamp(3) without time zone in database, timestamp(3) with time zone in schema',
    ]);
  });

  it('reports a table the schema does not have', async () => {
    expect(await driftAfter('CREATE TABLE foo (id integer PRIMARY KEY)')).toEqual([
      'table foo: in database, not in schema',
    ]);
  });

  it('reports tables, enums and relations the schema adds and the database lacks', async () => {
    const schema = `${await shippedSchema()}
enum Kind {
  A
}

model Grant {
  id       Int    @id
  clientId String @map("client_id")
  kind     Kind
  client   Client @relation(fields: [clientId], references: [id])
}`.replace('  @@map("clients")', '  grants Grant[]\n  @@map("clients")');
    const drift = await db.database.withSession((session) => findSchemaDrift(session, schema));
    expect(drift).toEqual(['table Grant: missing in database', 'enum Kind: missing in database']);
  });

  /** The database description of `sql` run in a schema of its own, rolled back afterwards. */
  const describeSql = (sql: string): Promise<SchemaDescription> =>
    db.database.withSession(async (session) => {
      await session.exec('BEGIN');
      try {
        await session.exec(`CREATE SCHEMA fixture; SET LOCAL search_path TO fixture; ${sql}`);
        return await readDatabaseSchema(session, 'fixture');
      } finally {
        await session.exec('ROLLBACK');
      }
    });

  it('finds no drift between a rich schema and the SQL Prisma Migrate generates for it', async () => {
    const expected = await expectedSchemaFromPrisma(RICH_SCHEMA);
    expect(compareSchemas(await describeSql(RICH_SQL), expected)).toEqual([]);
    expect(expected.tables.map((table) => table.name)).toEqual(['Tag', '_TagToTeam', 'members', 'teams']);
  });

  it('reports referential actions, enum values and index methods that differ', async () => {
    const sql = RICH_SQL.replace(`('ADMIN', 'member')`, `('ADMIN', 'member', 'GUEST')`)
      .replace('USING GIN ', '')
      .replace(
        '("team_id") REFERENCES "teams"("id") ON DELETE CASCADE',
        '("team_id") REFERENCES "teams"("id") ON DELETE RESTRICT',
      );
    expect(compareSchemas(await describeSql(sql), await expectedSchemaFromPrisma(RICH_SCHEMA))).toEqual([
      'foreign key members_team_id_fkey: on delete RESTRICT in database, CASCADE in schema',
      'index teams_settings_idx: method btree in database, gin in schema',
      'enum role: value GUEST in database, not in schema',
    ]);
  });

  it('rejects an invalid Prisma schema with Prisma’s own message', async () => {
    await expect(expectedSchemaFromPrisma('model {')).rejects.toThrow(/schema\.prisma is invalid: .*error/s);
  });
});

describe('the schema drift check on migrations that miss a column', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await startDatabase({ migrate: false });
  });

  afterAll(async () => {
    await db?.stop();
  });

  it('fails when a column of the schema is missing from the migration SQL', async () => {
    const migrations = (await readMigrations()).map((migration) => {
      const script = migration.script.replace(/^\s*"client_name" TEXT,\r?\n/m, '');
      return { ...migration, script, checksum: migrationChecksum(script) };
    });
    expect(migrations.map((migration) => migration.script).join('\n')).not.toContain('"client_name"');

    const drift = await db.database.withSession(async (session) => {
      await migrate(session, { migrations });
      return findSchemaDrift(session);
    });

    expect(drift).toEqual(['clients.client_name: missing in database']);
  });
});

function shippedSchema(): Promise<string> {
  return readFile(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
}

const RICH_SCHEMA = `
datasource db {
  provider = "postgresql"
}

enum Role {
  ADMIN
  MEMBER @map("member")

  @@map("role")
}

model Team {
  id       Int      @id @default(autoincrement())
  slug     String   @unique @db.VarChar(40)
  roles    Role[]   @default([ADMIN])
  role     Role     @default(MEMBER)
  ratio    Float    @default(0.5)
  budget   Decimal  @default(10.25) @db.Decimal(10, 2)
  big      BigInt   @default(-1)
  active   Boolean  @default(true)
  settings Json     @default("{\\"b\\": 1, \\"a\\": [1, 2]}")
  founded  DateTime @default("2020-01-01T00:00:00Z") @db.Timestamptz(3)
  token    String   @default(dbgenerated("gen_random_uuid()")) @db.Uuid
  blob     Bytes?
  members  Member[]
  tags     Tag[]

  @@index([founded(sort: Desc), active])
  @@index([settings], type: Gin)
  @@map("teams")
}

model Member {
  teamId Int    @map("team_id")
  userId String @map("user_id")
  team   Team   @relation(fields: [teamId], references: [id], onDelete: Cascade)

  @@id([teamId, userId])
  @@map("members")
}

model Tag {
  name  String @id
  teams Team[]
}
`;

/** What `prisma migrate diff --from-empty --to-schema` prints for RICH_SCHEMA. */
const RICH_SQL = `
CREATE TYPE "role" AS ENUM ('ADMIN', 'member');
CREATE TABLE "teams" (
    "id" SERIAL NOT NULL,
    "slug" VARCHAR(40) NOT NULL,
    "roles" "role"[] DEFAULT ARRAY['ADMIN']::"role"[],
    "role" "role" NOT NULL DEFAULT 'member',
    "ratio" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "budget" DECIMAL(10,2) NOT NULL DEFAULT 10.25,
    "big" BIGINT NOT NULL DEFAULT -1,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "settings" JSONB NOT NULL DEFAULT '{"b": 1, "a": [1, 2]}',
    "founded" TIMESTAMPTZ(3) NOT NULL DEFAULT '2020-01-01 00:00:00 +00:00',
    "token" UUID NOT NULL DEFAULT gen_random_uuid(),
    "blob" BYTEA,
    CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "members" (
    "team_id" INTEGER NOT NULL,
    "user_id" TEXT NOT NULL,
    CONSTRAINT "members_pkey" PRIMARY KEY ("team_id","user_id")
);
CREATE TABLE "Tag" (
    "name" TEXT NOT NULL,
    CONSTRAINT "Tag_pkey" PRIMARY KEY ("name")
);
CREATE TABLE "_TagToTeam" (
    "A" TEXT NOT NULL,
    "B" INTEGER NOT NULL,
    CONSTRAINT "_TagToTeam_AB_pkey" PRIMARY KEY ("A","B")
);
CREATE UNIQUE INDEX "teams_slug_key" ON "teams"("slug");
CREATE INDEX "teams_founded_active_idx" ON "teams"("founded" DESC, "active");
CREATE INDEX "teams_settings_idx" ON "teams" USING GIN ("settings");
CREATE INDEX "_TagToTeam_B_index" ON "_TagToTeam"("B");
ALTER TABLE "members" ADD CONSTRAINT "members_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "_TagToTeam" ADD CONSTRAINT "_TagToTeam_A_fkey" FOREIGN KEY ("A") REFERENCES "Tag"("name") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "_TagToTeam" ADD CONSTRAINT "_TagToTeam_B_fkey" FOREIGN KEY ("B") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
`;
