import type { Pack, PackStore, PostgresPackStore } from "@toolshed/schema";
import type { PgPool } from "@toolshed/storage/postgres";
import { explainDatabaseError } from "./database-errors.js";
import { DatabaseConnectError, redactDatabaseUrl } from "./database-url.js";
import { openEntries, type PackEntry, postgresStoreOf } from "./pack-entry.js";
import type { OpenedStores } from "./stores.js";

export interface PostgresPacksOptions {
  /** Tables live in this schema, created when missing (default: the server's search_path). */
  schema?: string;
  /** Connections in this process's pool (default 10). */
  poolMax?: number;
  demo?: boolean;
  /** Check the tables instead of migrating them (they must be current); create no schema. */
  readOnly?: boolean;
  idempotencyRetentionMs?: number;
  /** Hand the pool out for the tasks extension's table (default true; one database keeps the tasks). */
  tasks?: boolean;
}

/**
 * The chosen packs on one PostgreSQL pool, shared by the three stores and the readiness probe.
 * pg and the stores are imported only here, when a database URL is given, so SQLite-only use
 * never loads them.
 */
export async function openPostgresPacks(
  url: string,
  entries: readonly PackEntry[],
  options: PostgresPacksOptions,
): Promise<OpenedStores & { tasksPostgres?: PgPool }> {
  const { checkPgSchemas, createPgPool, pgIdentifier } = await import("@toolshed/storage/postgres");
  const schema = options.schema;
  const pool = createPgPool(url, {
    max: options.poolMax ?? 10,
    ...(schema === undefined ? {} : { schema }),
  });
  const closers: Array<() => Promise<void>> = [];
  const closeStores = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  };
  const closeAll = async () => {
    await closeStores();
    await pool.end().catch(() => {});
  };
  const readOnly = options.readOnly ?? false;
  const demo = options.demo ?? false;
  const database = `${redactDatabaseUrl(url)}${schema === undefined ? "" : ` (schema ${schema})`}`;
  let packs: Pack[];
  try {
    try {
      await pool.query("SELECT 1");
    } catch (error) {
      throw new DatabaseConnectError(
        `cannot connect to PostgreSQL at ${redactDatabaseUrl(url)} (${(error as Error).message}); check --database-url and that the server is running`,
      );
    }
    const { schemas, open } = await storeOpeners(entries);
    // Every pack's tables are checked before any store writes (or a schema is created).
    await checkPgSchemas(pool, schemas, { database, readonly: readOnly && !demo });
    if (!readOnly || demo) {
      if (schema !== undefined) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${pgIdentifier(schema)}`);
    }
    if (readOnly && demo) {
      // --demo writes its data first; then the stores only read the tables' versions.
      await open(pool, closers, { ...options, readOnly: false });
      await closeStores();
    }
    packs = await open(pool, closers, { ...options, readOnly, demo: demo && !readOnly });
  } catch (error) {
    await closeAll();
    throw explainDatabaseError(error, { database, readOnly, demo });
  }
  // Readiness asks on a connection of its own: a pool whose connections all wait behind a locked
  // table still has a database that answers, and is busy rather than unreachable.
  const max = options.poolMax ?? 10;
  const probe = createPgPool(url, { max: 1, connectionTimeoutMs: 2000, ...(schema === undefined ? {} : { schema }) });
  return {
    packs,
    // The tasks extension's table shares the stores' pool; a read-only database keeps no tasks.
    ...(readOnly || options.tasks === false ? {} : { tasksPostgres: pool }),
    async ping() {
      await probe.query("SELECT 1");
    },
    busy() {
      const waiting = pool.waitingCount;
      if (waiting === 0) return undefined;
      return `the database is busy: all ${max} connections of this instance are in use and ${waiting} ${waiting === 1 ? "call is" : "calls are"} waiting for one; calls may be slow or fail as busy`;
    },
    async close() {
      await probe.end().catch(() => {});
      await closeAll();
    },
  };
}

type Opener = (pool: PgPool, closers: Array<() => Promise<void>>, options: PostgresPacksOptions) => Promise<Pack[]>;

/** The chosen packs' store kinds (loaded only now), their tables, and how to open them on a pool. */
async function storeOpeners(entries: readonly PackEntry[]) {
  const opening: { entry: PackEntry; kind: PostgresPackStore<PackStore> | undefined }[] = [];
  for (const entry of entries) opening.push({ entry, kind: await postgresStoreOf(entry) });
  const open: Opener = async (pool, closers, options) => {
    const storeOptions = {
      readonly: options.readOnly ?? false,
      ...(options.idempotencyRetentionMs === undefined
        ? {}
        : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
    };
    return openEntries(opening, (kind) => kind.open(pool, storeOptions), closers, {
      ...(options.demo === undefined ? {} : { demo: options.demo }),
    });
  };
  return { schemas: opening.flatMap(({ kind }) => (kind === undefined ? [] : [kind.schema])), open };
}
