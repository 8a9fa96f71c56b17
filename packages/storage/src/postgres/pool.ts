import pg from "pg";

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

export interface PgPoolOptions {
  /** Connections per process (default 10). */
  max?: number;
  /** Server-side limit per statement (default 10 000 ms); a timeout is a retryable error (C10). */
  statementTimeoutMs?: number;
  /** How long to wait for a connection before failing (default 5000 ms). */
  connectionTimeoutMs?: number;
  /** Tables live in this (existing) schema; defaults to the server's search_path. */
  schema?: string;
  applicationName?: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Quotes a schema or table name after checking it is a plain identifier. */
export function pgIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a valid PostgreSQL identifier (a-z, 0-9, _)`);
  return `"${name}"`;
}

/**
 * A pooled connection to PostgreSQL for the stores. Every connection gets the statement timeout
 * and search_path, so one slow query cannot hold a connection forever. Idle-client errors (a
 * restarted server) are logged by pg's pool events, not thrown into the process.
 */
export function createPgPool(url: string, options: PgPoolOptions = {}): PgPool {
  const settings = [`-c statement_timeout=${Math.max(0, Math.floor(options.statementTimeoutMs ?? 10_000))}`];
  if (options.schema !== undefined) settings.push(`-c search_path=${pgIdentifier(options.schema).slice(1, -1)}`);
  // pg lets `options=` in the URL replace the pool's own; merge them instead, so a URL that sets
  // a search_path keeps the statement timeout.
  let connectionString = url;
  try {
    const parsed = new URL(url);
    const fromUrl = parsed.searchParams.get("options");
    if (fromUrl) {
      settings.unshift(fromUrl);
      parsed.searchParams.delete("options");
      connectionString = parsed.toString();
    }
  } catch {
    // not a URL (a libpq key=value string): pg reads it as it is
  }
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? "toolshed",
    options: settings.join(" "),
  });
  // Without a listener, an idle connection dropped by the server would crash the process.
  pool.on("error", () => {});
  return pool;
}

/** Runs `fn` in one transaction on a pooled client; rolls back on any error. */
export async function withPgTransaction<T>(
  pool: PgPool,
  fn: (client: PgClient) => Promise<T>,
  options: { isolation?: "read committed" | "repeatable read" | "serializable" } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN ISOLATION LEVEL ${(options.isolation ?? "read committed").toUpperCase()}`);
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
