export { type CursorField, decodeCursor, encodeCursor } from "./cursor.js";
export { escapeLike, type FtsSearchPhase, planFtsSearch, toFtsQuery } from "./fts.js";
export { fingerprint, IDEMPOTENCY_TABLE_SQL, runIdempotent } from "./idempotency.js";
export { type Migration, MigrationError, runMigrations } from "./migrate.js";
export { type OpenSqliteOptions, openSqlite, type SqliteDatabase, StorageOpenError } from "./sqlite.js";
