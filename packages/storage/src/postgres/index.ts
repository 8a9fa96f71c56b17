/**
 * @toolshed/storage/postgres: the PostgreSQL side of @toolshed/storage, kept apart so SQLite users never load pg.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { PG_IDEMPOTENCY_INDEX_SQL, PG_IDEMPOTENCY_TABLE_SQL, runIdempotentPg } from "./idempotency.js";
export { checkPgSchemas, type PgMigration, readPgSchemaVersions, runPgMigrations } from "./migrate.js";
export {
  type OpenPostgresStoreOptions,
  openPostgresStore,
  type PostgresStoreConnection,
  type PostgresStoreOptions,
} from "./open-store.js";
export {
  createPgPool,
  type PgClient,
  type PgPool,
  type PgPoolOptions,
  pgIdentifier,
  withPgTransaction,
} from "./pool.js";
export { PgCommonWords, type PgSearchColumn, pgSearchWords, toPgTsQuery } from "./search.js";
export { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "./testing.js";
