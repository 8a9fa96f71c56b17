/**
 * @toolshed/storage: opening SQLite, migrations, safe full-text search, cursors and idempotency
 * for pack stores. PostgreSQL is in `@toolshed/storage/postgres`.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { type CursorField, decodeCursor, encodeCursor } from "./cursor.js";
export { escapeLike, type FtsSearchPhase, planFtsSearch, toFtsQuery } from "./fts.js";
export {
  checkIdempotencyRetention,
  DEFAULT_IDEMPOTENCY_RETENTION_MS,
  fingerprint,
  IDEMPOTENCY_INDEX_SQL,
  IDEMPOTENCY_TABLE_SQL,
  type IdempotentRequest,
  runIdempotent,
} from "./idempotency.js";
export {
  checkSchemaVersions,
  latestVersion,
  type Migration,
  MigrationError,
  runMigrations,
  type StoreSchema,
} from "./migrate.js";
export { checkSqliteSchemas, type OpenSqliteStoreOptions, openSqliteStore } from "./open-store.js";
export { readSqliteSchemaVersions, schemaVersions } from "./schema-versions.js";
export {
  type OpenSqliteOptions,
  openSqlite,
  type SqliteDatabase,
  StorageOpenError,
  type StorageOpenReason,
} from "./sqlite.js";
export {
  defaultSqliteDriver,
  SQLITE_DRIVERS,
  type SqliteDriver,
  type SqliteDriverChoice,
  type SqliteRunResult,
  type SqliteStatement,
  type SqliteTransaction,
  sqliteDriver,
} from "./sqlite-driver.js";
