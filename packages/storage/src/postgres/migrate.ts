import { MigrationError } from "../migrate.js";
import { type PgPool, withPgTransaction } from "./pool.js";

export interface PgMigration {
  version: number;
  name: string;
  up: string;
}

/**
 * Brings a store's PostgreSQL tables to the latest version, all pending migrations in one
 * transaction under an advisory lock: several instances starting at once take turns, and a
 * failed upgrade leaves the database as it was.
 */
export async function runPgMigrations(
  pool: PgPool,
  scope: string,
  migrations: readonly PgMigration[],
): Promise<number> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const latest = sorted.at(-1)?.version ?? 0;
  return withPgTransaction(pool, async (client) => {
    // One lock for every pack: they share the bookkeeping tables, and concurrent
    // CREATE TABLE IF NOT EXISTS on one table can fail with a duplicate key.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('toolshed:migrations'))");
    await client.query(`CREATE TABLE IF NOT EXISTS toolshed_migrations (
      scope TEXT NOT NULL,
      version INTEGER NOT NULL,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (scope, version)
    )`);
    const current = async () =>
      Number(
        (await client.query("SELECT COALESCE(MAX(version), 0) AS v FROM toolshed_migrations WHERE scope = $1", [scope]))
          .rows[0].v,
      );
    const found = await current();
    if (found > latest) {
      throw new MigrationError(
        `database has ${scope} schema version ${found}, newer than this release knows (${latest}); upgrade the package or use another database`,
      );
    }
    for (const migration of sorted) {
      if (migration.version <= found) continue;
      await client.query(migration.up);
      await client.query("INSERT INTO toolshed_migrations (scope, version, name) VALUES ($1, $2, $3)", [
        scope,
        migration.version,
        migration.name,
      ]);
    }
    return current();
  });
}
