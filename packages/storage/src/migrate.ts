import { brandErrorClass } from "@toolshed/errors/internal";
import { schemaVersions } from "./schema-versions.js";
import { type SqliteDatabase, StorageOpenError } from "./sqlite.js";

export interface Migration {
  /** 1, 2, 3…: applied in order, each once. */
  version: number;
  name: string;
  /** SQL to run, or a function for data changes. */
  up: string | ((db: SqliteDatabase) => void);
}

/** A store's tables: the scope its versions are recorded under, and its migrations (SQLite or PostgreSQL). */
export interface StoreSchema {
  scope: string;
  migrations: readonly { version: number }[];
}

/** The version a store's tables have once every migration has run. */
export function latestVersion(schema: StoreSchema): number {
  return Math.max(0, ...schema.migrations.map((m) => m.version));
}

/**
 * Thrown when a database's tables are at a version this release cannot use: written by a newer
 * release (`reason: "newer_schema"`), or older and opened read-only (`"older_schema"`).
 */
export class MigrationError extends StorageOpenError {
  readonly scope: string;
  /** The version recorded in the database (0: none of this scope's tables). */
  readonly found: number;
  /** The latest version this release knows. */
  readonly latest: number;

  constructor(database: string, scope: string, found: number, latest: number) {
    const reason = found > latest ? "newer_schema" : "older_schema";
    const message =
      reason === "newer_schema"
        ? `database ${database} has ${scope} schema version ${found}, newer than this release knows (${latest}); upgrade Toolshed to a release that knows it, or use another database`
        : found === 0
          ? `database ${database} has no ${scope} tables yet, and a read-only open does not create them; open it once writable to create them`
          : `database ${database} has ${scope} schema version ${found}, older than this release needs (${latest}), and a read-only open does not upgrade it; open it once writable to upgrade it`;
    super(message, { reason, database });
    this.name = "MigrationError";
    this.scope = scope;
    this.found = found;
    this.latest = latest;
  }
}
brandErrorClass(MigrationError, "MigrationError");

/**
 * Checks recorded versions against the stores about to use them, before anything is written:
 * any scope newer than this release knows fails; with `readonly`, so does any scope that is not
 * at the latest version (a read-only open cannot migrate). Stores are checked in the order given.
 */
export function checkSchemaVersions(
  found: ReadonlyMap<string, number>,
  schemas: readonly StoreSchema[],
  options: { database: string; readonly?: boolean },
): void {
  for (const schema of schemas) {
    const version = found.get(schema.scope) ?? 0;
    const latest = latestVersion(schema);
    if (version > latest || (options.readonly && version < latest)) {
      throw new MigrationError(options.database, schema.scope, version, latest);
    }
  }
}

/**
 * Brings a store's tables to the latest version, each migration in its own transaction, so an
 * older file is upgraded in place and an interrupted upgrade leaves the last complete version.
 * `scope` keeps the versions of packs that share one file apart.
 */
export function runMigrations(db: SqliteDatabase, scope: string, migrations: readonly Migration[]): number {
  // Refuse a newer file before the bookkeeping table is created.
  checkSchemaVersions(schemaVersions(db), [{ scope, migrations }], { database: db.name });
  db.exec(`CREATE TABLE IF NOT EXISTS toolshed_migrations (
    scope TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (scope, version)
  )`);
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const current = () =>
    (db.prepare("SELECT MAX(version) AS v FROM toolshed_migrations WHERE scope = ?").get(scope) as { v: number | null })
      .v ?? 0;
  const record = db.prepare("INSERT INTO toolshed_migrations (scope, version, name, applied_at) VALUES (?, ?, ?, ?)");
  for (const migration of sorted) {
    // IMMEDIATE: two processes opening an old file at once take turns instead of both migrating.
    db.transaction(() => {
      if (current() >= migration.version) return;
      if (typeof migration.up === "string") db.exec(migration.up);
      else migration.up(db);
      record.run(scope, migration.version, migration.name, new Date().toISOString());
    }).immediate();
  }
  return current();
}
