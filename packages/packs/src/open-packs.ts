import { resolve } from "node:path";
import type { Pack } from "@toolshed/schema";
import type { SqliteDatabase, SqliteDriver, SqliteDriverChoice } from "@toolshed/storage";
import type { PgPool } from "@toolshed/storage/postgres";
import { checkDatabaseUrl, redactDatabaseUrl } from "./database-url.js";
import { openSqlitePacks } from "./open-sqlite.js";
import { BUILT_IN_PACKS, checkedOptions, type PackDatabase, type PackEntry } from "./pack-entry.js";
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
  const main: Target =
    options.databaseUrl !== undefined
      ? {
          databaseUrl: options.databaseUrl,
          ...(options.databaseSchema === undefined ? {} : { databaseSchema: options.databaseSchema }),
        }
      : { db: options.db ?? ":memory:" };
  // Packs with a database of their own are opened on it; the rest, and the tasks, on the main one.
  const groups = new Map<string, { target: Target; entries: PackEntry[] }>([
    [targetKey(main), { target: main, entries: [] }],
  ]);
  for (const entry of entries) {
    const target = entry.database ?? main;
    const key = targetKey(target);
    const group = groups.get(key) ?? { target, entries: [] };
    group.entries.push(entry);
    groups.set(key, group);
  }
  const opened: OpenedGroup[] = [];
  try {
    for (const group of groups.values()) {
      opened.push(await openGroup(group.target, group.entries, { ...common, tasks: group.target === main }, options));
    }
  } catch (error) {
    for (const group of opened) await group.stores.close().catch(() => {});
    throw error;
  }
  const first = opened[0] as OpenedGroup;
  const byEntry = new Map<PackEntry, Pack>();
  for (const [i, group] of [...groups.values()].entries()) {
    for (const [k, entry] of group.entries.entries()) byEntry.set(entry, opened[i]?.stores.packs[k] as Pack);
  }
  let closed = false;
  const readiness = async (): Promise<Readiness> => {
    if (closed) return { ready: false, reason: "the server is closing its database" };
    let busy: Readiness | undefined;
    for (const group of opened) {
      const which = opened.length === 1 ? "" : ` (${group.label})`;
      try {
        await group.stores.ping();
      } catch {
        const reason =
          group.target.databaseUrl === undefined ? "cannot read the database file" : "cannot reach the database";
        return { ready: false, database: "unreachable", reason: `${reason}${which}` };
      }
      const cannotWrite = group.stores.cannotWrite?.();
      if (cannotWrite !== undefined) {
        const reason = `the database${which} cannot be written: ${cannotWrite}; tools that only read still work`;
        return { ready: false, database: "cannot_write", reason };
      }
      const waiting = group.stores.busy?.();
      if (waiting !== undefined && busy === undefined)
        busy = { ready: true, database: "busy", reason: `${waiting}${which}` };
    }
    return busy ?? { ready: true };
  };
  return {
    packs: entries.map((entry) => byEntry.get(entry) as Pack),
    names,
    database: options.databaseUrl === undefined ? "sqlite" : "postgres",
    ...(first.sqliteDriver === undefined ? {} : { sqliteDriver: first.sqliteDriver }),
    ...(first.tasksDatabase === undefined ? {} : { tasksDatabase: first.tasksDatabase }),
    ...(first.tasksPostgres === undefined ? {} : { tasksPostgres: first.tasksPostgres }),
    readiness,
    async ready() {
      return (await readiness()).ready;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const group of opened.reverse()) await group.stores.close();
    },
  };
}

type Target = PackDatabase;

interface OpenedGroup {
  target: Target;
  label: string;
  stores: OpenedStores;
  sqliteDriver?: SqliteDriver;
  tasksDatabase?: SqliteDatabase;
  tasksPostgres?: PgPool;
}

function targetKey(target: Target): string {
  if (target.databaseUrl !== undefined) return `postgres ${target.databaseUrl} ${target.databaseSchema ?? ""}`;
  return target.db === ":memory:" ? ":memory:" : `sqlite ${resolve(target.db)}`;
}

async function openGroup(
  target: Target,
  entries: readonly PackEntry[],
  common: { demo?: boolean; readOnly?: boolean; idempotencyRetentionMs?: number; tasks: boolean },
  options: OpenPacksOptions,
): Promise<OpenedGroup> {
  if (target.databaseUrl !== undefined) {
    checkDatabaseUrl(target.databaseUrl);
    const { openPostgresPacks } = await import("./open-postgres.js");
    const postgres = await openPostgresPacks(target.databaseUrl, entries, {
      ...common,
      ...(target.databaseSchema === undefined ? {} : { schema: target.databaseSchema }),
      ...(options.poolMax === undefined ? {} : { poolMax: options.poolMax }),
    });
    const label = `${redactDatabaseUrl(target.databaseUrl)}${target.databaseSchema === undefined ? "" : ` schema ${target.databaseSchema}`}`;
    return {
      target,
      label,
      stores: postgres,
      ...(postgres.tasksPostgres === undefined ? {} : { tasksPostgres: postgres.tasksPostgres }),
    };
  }
  const sqlite = await openSqlitePacks(target.db, entries, {
    ...common,
    ...(options.sqliteDriver === undefined ? {} : { sqliteDriver: options.sqliteDriver }),
  });
  return {
    target,
    label: target.db === ":memory:" ? target.db : resolve(target.db),
    stores: sqlite,
    sqliteDriver: sqlite.sqliteDriver,
    ...(sqlite.tasksDatabase === undefined ? {} : { tasksDatabase: sqlite.tasksDatabase }),
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
    const onPostgres = entry.database ? entry.database.databaseUrl !== undefined : options.databaseUrl !== undefined;
    if (onPostgres && stores !== undefined && stores.postgres === undefined) {
      throw new PackConfigError(
        `pack "${entry.name}" keeps its data only on SQLite; serve it without --database-url, on a SQLite file (--db)`,
      );
    }
    seen.add(entry.name);
    entries.push({ ...entry, options: checkedOptions(entry) });
  }
  return entries;
}
