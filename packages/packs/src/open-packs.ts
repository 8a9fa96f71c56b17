import type { Pack } from "@toolshed/schema";
import type { SqliteDatabase, SqliteDriver, SqliteDriverChoice } from "@toolshed/storage";
import type { PgPool } from "@toolshed/storage/postgres";
import { checkDatabaseUrl } from "./database-url.js";
import { openSqlitePacks } from "./open-sqlite.js";
import { BUILT_IN_PACKS, checkedOptions, type PackEntry } from "./pack-entry.js";
import { PACK_NAMES, PackConfigError, type PackName } from "./pack-names.js";
import type { Readiness } from "./readiness.js";
import type { OpenedStores } from "./stores.js";

export interface OpenPacksOptions {
  /** SQLite file (created with its folders) or `:memory:`; ignored when `databaseUrl` is given. */
  db?: string;
  /** PostgreSQL URL (`postgres://…`): the stores share one pool, so several instances share the data. */
  databaseUrl?: string;
  /** PostgreSQL schema for the tables, created when missing (default: the server's search_path). */
  databaseSchema?: string;
  /** PostgreSQL connections in this process (default 10). */
  poolMax?: number;
  /**
   * The packs to open, in order: a built-in pack's name, or any pack's descriptor with the name
   * it is served under and its options (default: the three built-in packs).
   */
  packs?: readonly (PackName | PackEntry)[];
  /** Seed demo data into stores that are empty of it (idempotent, also across instances). */
  demo?: boolean;
  /** How long one CRM store call may take, in ms (default 5000); the built-in crm pack's `timeoutMs`. */
  crmTimeoutMs?: number;
  /**
   * Open the database without writing to it: SQLite read-only (no WAL switch, no migrations), on
   * PostgreSQL no migrations and no schema created. The tables must be at this release's version.
   * With `demo`, the demo data is written first. `:memory:` stays writable.
   */
  readOnly?: boolean;
  /** How long idempotency keys are remembered (default 24 hours; Infinity keeps them forever). */
  idempotencyRetentionMs?: number;
  /**
   * Which SQLite driver opens the file: `auto` (default) is node:sqlite on Node 22.16 or later,
   * else better-sqlite3. One that cannot be loaded here is a PackConfigError saying what would
   * work. Ignored with `databaseUrl`.
   */
  sqliteDriver?: SqliteDriverChoice;
}

export interface OpenedPacks {
  packs: Pack[];
  /** The names the packs are served under, in order. */
  names: string[];
  /** Which database the stores use. */
  database: "sqlite" | "postgres";
  /** The SQLite driver in use (undefined on PostgreSQL). */
  sqliteDriver?: SqliteDriver;
  /**
   * A connection of its own to the SQLite file, for the tasks of the `io.modelcontextprotocol/tasks`
   * extension (`new SqliteTaskStore(tasksDatabase)` of @toolshed/server); closed with the packs.
   * Undefined on PostgreSQL and when the database is opened read-only.
   */
  tasksDatabase?: SqliteDatabase;
  /**
   * On PostgreSQL, the stores' pool, for the tasks of the extension
   * (`await PostgresTaskStore.open(tasksPostgres)` of @toolshed/server); ended with the packs.
   * Undefined on SQLite and when the database is opened read-only.
   */
  tasksPostgres?: PgPool;
  /** True when the database answers a query (SELECT 1) and no store failed lately to write to it. */
  ready(): Promise<boolean>;
  /**
   * Readiness with its reason: not ready when the database cannot be reached (or read), or a write
   * failed lately because it cannot be written (a full disk, a read-only file); ready but `busy`
   * while calls wait for a pooled connection, since a locked table is no reason to stop traffic.
   */
  readiness(): Promise<Readiness>;
  /** Closes every store (and the PostgreSQL pool); safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the chosen packs on one database: SQLite by default, PostgreSQL when `databaseUrl` is
 * given. Every pack's tables are checked before anything is written, so a database from a newer
 * release is refused unchanged. A database that cannot be used is a PackConfigError whose message
 * says what would work. Stores close with `close()`, not with a server.
 */
export async function openPacks(options: OpenPacksOptions): Promise<OpenedPacks> {
  const entries = packEntries(options);
  const names = entries.map((entry) => entry.name);
  const common = {
    ...(options.demo === undefined ? {} : { demo: options.demo }),
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.idempotencyRetentionMs === undefined ? {} : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
  };
  let stores: OpenedStores;
  let sqliteDriver: SqliteDriver | undefined;
  let tasksDatabase: SqliteDatabase | undefined;
  let tasksPostgres: PgPool | undefined;
  if (options.databaseUrl !== undefined) {
    checkDatabaseUrl(options.databaseUrl);
    const { openPostgresPacks } = await import("./open-postgres.js");
    const postgres = await openPostgresPacks(options.databaseUrl, entries, {
      ...common,
      ...(options.databaseSchema === undefined ? {} : { schema: options.databaseSchema }),
      ...(options.poolMax === undefined ? {} : { poolMax: options.poolMax }),
    });
    stores = postgres;
    tasksPostgres = postgres.tasksPostgres;
  } else {
    const sqlite = await openSqlitePacks(options.db ?? ":memory:", entries, {
      ...common,
      ...(options.sqliteDriver === undefined ? {} : { sqliteDriver: options.sqliteDriver }),
    });
    stores = sqlite;
    sqliteDriver = sqlite.sqliteDriver;
    tasksDatabase = sqlite.tasksDatabase;
  }
  let closed = false;
  const readiness = async (): Promise<Readiness> => {
    if (closed) return { ready: false, reason: "the server is closing its database" };
    try {
      await stores.ping();
    } catch {
      const reason = options.databaseUrl === undefined ? "cannot read the database file" : "cannot reach the database";
      return { ready: false, database: "unreachable", reason };
    }
    const cannotWrite = stores.cannotWrite?.();
    if (cannotWrite !== undefined) {
      const reason = `the database cannot be written: ${cannotWrite}; tools that only read still work`;
      return { ready: false, database: "cannot_write", reason };
    }
    const busy = stores.busy?.();
    return busy === undefined ? { ready: true } : { ready: true, database: "busy", reason: busy };
  };
  return {
    packs: stores.packs,
    names,
    database: options.databaseUrl === undefined ? "sqlite" : "postgres",
    ...(sqliteDriver === undefined ? {} : { sqliteDriver }),
    ...(tasksDatabase === undefined ? {} : { tasksDatabase }),
    ...(tasksPostgres === undefined ? {} : { tasksPostgres }),
    readiness,
    async ready() {
      return (await readiness()).ready;
    },
    async close() {
      if (closed) return;
      closed = true;
      await stores.close();
    },
  };
}

/** The packs to open, each with its options checked; a name served twice is refused. */
function packEntries(options: OpenPacksOptions): PackEntry[] {
  const entries: PackEntry[] = [];
  const seen = new Set<string>();
  for (const choice of options.packs ?? PACK_NAMES) {
    const entry: PackEntry =
      typeof choice === "string"
        ? {
            name: choice,
            descriptor: BUILT_IN_PACKS[choice],
            options: choice === "crm" && options.crmTimeoutMs !== undefined ? { timeoutMs: options.crmTimeoutMs } : {},
          }
        : choice;
    if (seen.has(entry.name)) throw new PackConfigError(`pack "${entry.name}" is given twice; serve each pack once`);
    const stores = entry.descriptor.stores;
    if (options.databaseUrl !== undefined && stores !== undefined && stores.postgres === undefined) {
      throw new PackConfigError(
        `pack "${entry.name}" keeps its data only on SQLite; serve it without --database-url, on a SQLite file (--db)`,
      );
    }
    seen.add(entry.name);
    entries.push({ ...entry, options: checkedOptions(entry) });
  }
  return entries;
}
