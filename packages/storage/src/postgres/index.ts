export { PG_IDEMPOTENCY_INDEX_SQL, PG_IDEMPOTENCY_TABLE_SQL, runIdempotentPg } from "./idempotency.js";
export { checkPgSchemas, type PgMigration, readPgSchemaVersions, runPgMigrations } from "./migrate.js";
export {
  createPgPool,
  type PgClient,
  type PgPool,
  type PgPoolOptions,
  pgIdentifier,
  withPgTransaction,
} from "./pool.js";
export { toPgTsQuery } from "./search.js";
export { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "./testing.js";
