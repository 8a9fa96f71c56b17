import { resolve } from "node:path";
import { checkSchemaVersions, type Migration, runMigrations, type StoreSchema } from "./migrate.js";
import { readSqliteSchemaVersions, schemaVersions } from "./schema-versions.js";
import { explainUnreadable, openSqlite, type SqliteDatabase, StorageOpenError } from "./sqlite.js";
import type { SqliteDriverChoice } from "./sqlite-driver.js";

export interface OpenSqliteStoreOptions {
  /** The store's scope and migrations. */
  schema: { scope: string; migrations: readonly Migration[] };
  /** Open an existing file without writing: no WAL switch, no migrations; its tables must be current. */
  readonly?: boolean;
  busyTimeoutMs?: number;
  /** Which SQLite driver opens the file (default `auto`: node:sqlite where Node has it, else better-sqlite3). */
  driver?: SqliteDriverChoice;
}

/**
 * Checks that no store about to open a database file finds tables newer than it knows, before
 * anything is written: the file keeps its bytes and gets no -wal or -shm. With `readonly`, also
 * that every store's tables are current, and that the file exists.
 */
export function checkSqliteSchemas(
  path: string,
  schemas: readonly StoreSchema[],
  options: { readonly?: boolean; driver?: SqliteDriverChoice } = {},
): void {
  if (path === ":memory:") return;
  const file = resolve(path);
  const found = readSqliteSchemaVersions(file, options.driver === undefined ? {} : { driver: options.driver });
  if (found === undefined) {
    if (options.readonly) {
      throw new StorageOpenError(`database ${file} does not exist; a read-only open needs an existing database file`, {
        reason: "missing",
        database: file,
      });
    }
    return;
  }
  checkSchemaVersions(found, schemas, { database: file, readonly: options.readonly ?? false });
}

/**
 * Opens a store's SQLite database: checks the versions first (a newer file is refused unchanged),
 * then opens it writable and migrates, or with `readonly` opens it read-only and requires
 * current tables.
 */
export function openSqliteStore(path: string, options: OpenSqliteStoreOptions): SqliteDatabase {
  const { schema } = options;
  const driver = options.driver === undefined ? {} : { driver: options.driver };
  if (!options.readonly) checkSqliteSchemas(path, [schema], driver);
  const db = openSqlite(path, {
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    ...driver,
    readonly: options.readonly ?? false,
  });
  try {
    if (options.readonly) {
      checkSchemaVersions(readableVersions(db), [schema], { database: db.name, readonly: true });
    } else {
      runMigrations(db, schema.scope, schema.migrations);
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** The versions through a read-only connection, explaining the one case SQLite cannot read. */
function readableVersions(db: SqliteDatabase): Map<string, number> {
  try {
    return schemaVersions(db);
  } catch (error) {
    throw explainUnreadable(error, db.name);
  }
}
