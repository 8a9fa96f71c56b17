import { checkPgSchemas, type PgMigration, runPgMigrations } from "./migrate.js";
import { createPgPool, type PgPool, pgIdentifier } from "./pool.js";

/** How a pack's PostgreSQL store connects; the pool settings apply only when it is given a URL. */
export interface PostgresStoreOptions {
  /** Tables live in this schema (created when missing); defaults to the server's search_path. URL only. */
  schema?: string;
  /** Server-side limit per statement (default 10 000 ms); a timeout is a retryable error. URL only. */
  statementTimeoutMs?: number;
  /** Connections in the pool (default 10). URL only. */
  max?: number;
  /** How long to wait for a connection before a retryable `unavailable` (default 5000 ms). URL only. */
  connectionTimeoutMs?: number;
  /** Check the tables instead of migrating them (they must be current), for read-only roles and standbys. */
  readonly?: boolean;
}

export interface OpenPostgresStoreOptions extends PostgresStoreOptions {
  /** The store's scope in toolshed_migrations, and its migrations. */
  scope: string;
  migrations: readonly PgMigration[];
}

/** An opened store's pool, and how to let go of it. */
export interface PostgresStoreConnection {
  pool: PgPool;
  /** Ends the pool when it was made from a URL; leaves a given pool to its owner. Safe to call twice. */
  release(): Promise<void>;
}

/**
 * Opens a store's PostgreSQL tables: a URL makes a pool (named `toolshed-<scope>`) that
 * `release()` ends, a given pool stays its owner's. Then brings the tables to the latest version
 * (instances starting at once take turns), or with `readonly` only checks they are current. On
 * failure a pool made here is ended before the error is thrown.
 */
export async function openPostgresStore(
  source: string | { pool: PgPool },
  options: OpenPostgresStoreOptions,
): Promise<PostgresStoreConnection> {
  const { scope, migrations, readonly = false, schema } = options;
  const owned = typeof source === "string";
  const pool = owned
    ? createPgPool(source, {
        ...(schema === undefined ? {} : { schema }),
        ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
        ...(options.max === undefined ? {} : { max: options.max }),
        ...(options.connectionTimeoutMs === undefined ? {} : { connectionTimeoutMs: options.connectionTimeoutMs }),
        applicationName: `toolshed-${scope}`,
      })
    : source.pool;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (owned) await pool.end();
  };
  try {
    if (readonly) {
      await checkPgSchemas(pool, [{ scope, migrations }], { readonly: true });
    } else {
      if (owned && schema !== undefined) {
        // The pool's search_path names the schema, so it must exist before the first table. Instances
        // starting together may race to create it; losing that race is fine.
        await pool.query(`CREATE SCHEMA IF NOT EXISTS ${pgIdentifier(schema)}`).catch((error: unknown) => {
          if ((error as { code?: unknown }).code !== "23505") throw error;
        });
      }
      await runPgMigrations(pool, scope, migrations);
    }
  } catch (error) {
    await release().catch(() => {});
    throw error;
  }
  return { pool, release };
}
