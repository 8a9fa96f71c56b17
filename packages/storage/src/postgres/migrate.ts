import { checkSchemaVersions, MigrationError, type StoreSchema } from "../migrate.js";
import { type PgClient, type PgPool, withPgTransaction } from "./pool.js";

export interface PgMigration {
  version: number;
  name: string;
  up: string;
}

type Queryable = Pick<PgClient, "query">;

/** The highest version of every scope in toolshed_migrations (none yet: an empty map); reads only. */
export async function readPgSchemaVersions(db: Queryable): Promise<Map<string, number>> {
  const table = await db.query("SELECT to_regclass('toolshed_migrations') IS NOT NULL AS present");
  if (!table.rows[0]?.present) return new Map();
  const { rows } = await db.query("SELECT scope, MAX(version) AS v FROM toolshed_migrations GROUP BY scope");
  return new Map(rows.map((r) => [r.scope as string, Number(r.v)]));
}

/** Names the database and schema in messages; never the URL, which may hold a password. */
async function databaseLabel(db: Queryable): Promise<string> {
  const { rows } = await db.query("SELECT current_database() AS d, current_schema() AS s");
  const { d, s } = rows[0] as { d: string; s: string | null };
  return s === null ? `"${d}"` : `"${d}" (schema ${s})`;
}

/**
 * Checks the stores about to use a database against its recorded versions, reading only: any
 * scope newer than this release knows is refused; with `readonly`, so is any scope that is not
 * current. `database` names it in the message (default: its name and schema).
 */
export async function checkPgSchemas(
  db: Queryable,
  schemas: readonly StoreSchema[],
  options: { readonly?: boolean; database?: string } = {},
): Promise<void> {
  const found = await readPgSchemaVersions(db);
  try {
    checkSchemaVersions(found, schemas, { database: "", readonly: options.readonly ?? false });
  } catch (error) {
    if (!(error instanceof MigrationError)) throw error;
    throw new MigrationError(options.database ?? (await databaseLabel(db)), error.scope, error.found, error.latest);
  }
}

/**
 * Brings a store's PostgreSQL tables to the latest version, all pending migrations in one
 * transaction under an advisory lock: several instances starting at once take turns, and a
 * failed upgrade, or a database from a newer release, leaves the database as it was.
 */
export async function runPgMigrations(
  pool: PgPool,
  scope: string,
  migrations: readonly PgMigration[],
): Promise<number> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  return withPgTransaction(pool, async (client) => {
    // One lock for every pack: they share the bookkeeping tables, and concurrent
    // CREATE TABLE IF NOT EXISTS on one table can fail with a duplicate key.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('toolshed:migrations'))");
    await checkPgSchemas(client, [{ scope, migrations }]);
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
