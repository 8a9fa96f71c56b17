import type { SqliteDatabase } from "./sqlite.js";

export interface Migration {
  /** 1, 2, 3…: applied in order, each once. */
  version: number;
  name: string;
  /** SQL to run, or a function for data changes. */
  up: string | ((db: SqliteDatabase) => void);
}

/** Thrown when a database file was written by a newer release than this one. */
export class MigrationError extends Error {}

/**
 * Brings a store's tables to the latest version, each migration in its own transaction, so an
 * older file is upgraded in place and an interrupted upgrade leaves the last complete version.
 * `scope` keeps the versions of packs that share one file apart.
 */
export function runMigrations(db: SqliteDatabase, scope: string, migrations: readonly Migration[]): number {
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
  const latest = sorted.at(-1)?.version ?? 0;
  const found = current();
  if (found > latest) {
    throw new MigrationError(
      `database has ${scope} schema version ${found}, newer than this release knows (${latest}); upgrade the package or use another file`,
    );
  }
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
