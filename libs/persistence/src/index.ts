export { openDatabase, DatabaseConnectionError } from './database.js';
export type {
  Database,
  DatabaseTarget,
  OpenDatabaseOptions,
  PoolStats,
  QueryEvent,
  QueryObserver,
} from './database.js';
export { DatabaseModule, DATABASE } from './database.module.js';
export type { DirectSql, SqlStatement } from './direct-sql.js';
export { UnitOfWork } from './unit-of-work.js';
export {
  DATABASE_RETRY_AFTER_SECONDS,
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  translateDatabaseError,
} from './unavailable.js';
export type { Db, UnitOfWorkTimeouts } from './unit-of-work.js';
export type { DatabaseModuleOptions } from './database.module.js';
export { acquireEmbeddedLock, EmbeddedDatabaseBusyError } from './embedded-lock.js';
export type { EmbeddedLock } from './embedded-lock.js';
export {
  APP_SCHEMAS,
  isAppSchema,
  MIGRATION_SET_TABLES,
  MIGRATIONS_DIR,
  migrationChecksum,
  otherAppsMigrations,
  readMigrationFolder,
  readMigrations,
  schemaTables,
} from './migrator/migrations.js';
export type { DatabaseSchema, MigrationFile, MigrationSet } from './migrator/migrations.js';
export { migrate, pendingMigrations, MigrationError, PRISMA_MIGRATE_LOCK_KEY } from './migrator/migrator.js';
export type {
  MigrateOptions,
  MigrateResult,
  MigrationErrorCode,
  MigrationLogger,
} from './migrator/migrator.js';
export { pgSession, pgliteSession } from './migrator/sql-session.js';
export type { SqlSession } from './migrator/sql-session.js';
export { redactDatabaseUrl } from './redact-url.js';
export { PrismaClient, Prisma } from './generated/prisma/client.js';
export type {
  AccessToken,
  AuthorizationCode,
  AuthorizationGrant,
  Client,
  Consent,
  LoginSession,
  Note,
  PendingAuthorization,
  RefreshToken,
  SecurityEvent,
  SigningKey,
  User,
} from './generated/prisma/client.js';
export type * from './generated/prisma/models.js';
export {
  compareSchemas,
  expectedSchemaFromPrisma,
  findSchemaDrift,
  readDatabaseSchema,
} from './drift/schema-drift.js';
export type {
  ColumnDescription,
  EnumDescription,
  ForeignKeyDescription,
  IndexDescription,
  KeyDescription,
  ReferentialAction,
  SchemaDescription,
  TableDescription,
} from './drift/schema-drift.js';
