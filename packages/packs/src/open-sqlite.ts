import { resolve } from "node:path";
import type { Pack, PackStore, SqlitePackStore } from "@toolshed/schema";
import {
  checkSqliteSchemas,
  openSqlite,
  type SqliteDatabase,
  type SqliteDriver,
  type SqliteDriverChoice,
} from "@toolshed/storage";
import { explainDatabaseError } from "./database-errors.js";
import { openEntries, type PackEntry, sqliteStoreOf } from "./pack-entry.js";
import { WriteFailures } from "./readiness.js";
import { resolveSqliteDriver } from "./sqlite-driver.js";
import type { OpenedStores } from "./stores.js";

export interface SqlitePacksOptions {
  demo?: boolean;
  /** Open the file read-only: nothing written, tables must be current (`:memory:` stays writable). */
  readOnly?: boolean;
  idempotencyRetentionMs?: number;
  /** Which SQLite driver opens the file (default `auto`). */
  sqliteDriver?: SqliteDriverChoice;
  /** Open a connection for the tasks extension's table too (default true; one database keeps the tasks). */
  tasks?: boolean;
}

type Opening = { entry: PackEntry; kind: SqlitePackStore<PackStore> | undefined };

/** The chosen packs (their options checked) on one SQLite file (or `:memory:`), with a read-only probe connection. */
export async function openSqlitePacks(
  db: string,
  entries: readonly PackEntry[],
  options: SqlitePacksOptions,
): Promise<OpenedStores & { sqliteDriver: SqliteDriver; tasksDatabase?: SqliteDatabase }> {
  const readonly = (options.readOnly ?? false) && db !== ":memory:";
  const demo = options.demo ?? false;
  const driver = resolveSqliteDriver(options.sqliteDriver);
  const using = { ...options, sqliteDriver: driver };
  const opening: Opening[] = [];
  for (const entry of entries) opening.push({ entry, kind: await sqliteStoreOf(entry) });
  try {
    // Every pack's tables are checked before any store writes to the file.
    checkSqliteSchemas(
      db,
      opening.flatMap(({ kind }) => (kind === undefined ? [] : [kind.schema])),
      { readonly: readonly && !demo, driver },
    );
    if (readonly && demo) {
      // --demo writes its data first; then the file is served read-only.
      await (await openStores(db, opening, { ...using, readOnly: false })).close();
    }
    const stores = await openStores(db, opening, { ...using, readOnly: readonly, demo: demo && !readonly });
    return { ...stores, sqliteDriver: driver };
  } catch (error) {
    const database = db === ":memory:" ? db : resolve(db);
    throw explainDatabaseError(error, { database, readOnly: options.readOnly ?? false, demo });
  }
}

async function openStores(
  db: string,
  opening: readonly Opening[],
  options: SqlitePacksOptions,
): Promise<OpenedStores & { tasksDatabase?: SqliteDatabase }> {
  const closers: Array<() => Promise<void>> = [];
  const packs: Pack[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  const storeOptions = {
    readonly: options.readOnly ?? false,
    ...(options.sqliteDriver === undefined ? {} : { driver: options.sqliteDriver }),
    ...(options.idempotencyRetentionMs === undefined ? {} : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
  };
  // Readiness learns of a file that cannot be written from the stores' failed writes.
  const failures = options.readOnly ? undefined : new WriteFailures();
  const watched = <T extends object>(store: T): T => failures?.watch(store) ?? store;
  let tasksDatabase: SqliteDatabase | undefined;
  try {
    // The driver was picked by openSqlitePacks: never `auto` here.
    const using = storeOptions as typeof storeOptions & { driver?: SqliteDriver };
    packs.push(
      ...(await openEntries(opening, (kind) => kind.open(db, using), closers, {
        ...(options.demo === undefined ? {} : { demo: options.demo }),
        watch: watched,
      })),
    );
    // The tasks extension's table, on a connection of its own (it also makes the file with no pack).
    if (!options.readOnly && options.tasks !== false) {
      tasksDatabase = openSqlite(db, options.sqliteDriver === undefined ? {} : { driver: options.sqliteDriver });
      const opened = tasksDatabase;
      closers.push(async () => {
        opened.close();
      });
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  // A connection of its own for health checks, so a check never waits behind a tool's write.
  const probe =
    db === ":memory:"
      ? undefined
      : openSqlite(db, {
          readonly: true,
          ...(options.sqliteDriver === undefined ? {} : { driver: options.sqliteDriver }),
        });
  return {
    packs,
    ...(tasksDatabase === undefined ? {} : { tasksDatabase }),
    async ping() {
      probe?.prepare("SELECT 1").get();
    },
    cannotWrite: () => failures?.current(),
    async close() {
      probe?.close();
      await closeAll();
    },
  };
}
