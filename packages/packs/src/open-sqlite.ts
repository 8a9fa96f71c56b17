import { resolve } from "node:path";
import { crmPack, SqliteCrmStore, seedDemo as seedCrm } from "@toolshed/crm";
import { notesPack, SqliteNotesStore, seedDemo as seedNotes } from "@toolshed/notes";
import type { Pack } from "@toolshed/schema";
import {
  checkSqliteSchemas,
  openSqlite,
  type SqliteDatabase,
  type SqliteDriver,
  type SqliteDriverChoice,
} from "@toolshed/storage";
import { SqliteTicketsStore, seedDemo as seedTickets, ticketsPack } from "@toolshed/tickets";
import { explainDatabaseError } from "./database-errors.js";
import type { PackName } from "./pack-names.js";
import { WriteFailures } from "./readiness.js";
import { resolveSqliteDriver } from "./sqlite-driver.js";
import type { OpenedStores } from "./stores.js";

export interface SqlitePacksOptions {
  demo?: boolean;
  crmTimeoutMs?: number;
  /** Open the file read-only: nothing written, tables must be current (`:memory:` stays writable). */
  readOnly?: boolean;
  idempotencyRetentionMs?: number;
  /** Which SQLite driver opens the file (default `auto`). */
  sqliteDriver?: SqliteDriverChoice;
}

const SCHEMAS = {
  notes: SqliteNotesStore.schema,
  tickets: SqliteTicketsStore.schema,
  crm: SqliteCrmStore.schema,
} as const;

/** The chosen packs on one SQLite file (or `:memory:`), with a read-only probe connection. */
export async function openSqlitePacks(
  db: string,
  names: readonly PackName[],
  options: SqlitePacksOptions,
): Promise<OpenedStores & { sqliteDriver: SqliteDriver; tasksDatabase?: SqliteDatabase }> {
  const readonly = (options.readOnly ?? false) && db !== ":memory:";
  const demo = options.demo ?? false;
  const driver = resolveSqliteDriver(options.sqliteDriver);
  const using = { ...options, sqliteDriver: driver };
  try {
    // Every pack's tables are checked before any store writes to the file.
    checkSqliteSchemas(
      db,
      names.map((name) => SCHEMAS[name]),
      { readonly: readonly && !demo, driver },
    );
    if (readonly && demo) {
      // --demo writes its data first; then the file is served read-only.
      await (await openStores(db, names, { ...using, readOnly: false })).close();
    }
    const stores = await openStores(db, names, { ...using, readOnly: readonly, demo: demo && !readonly });
    return { ...stores, sqliteDriver: driver };
  } catch (error) {
    const database = db === ":memory:" ? db : resolve(db);
    throw explainDatabaseError(error, { database, readOnly: options.readOnly ?? false, demo });
  }
}

async function openStores(
  db: string,
  names: readonly PackName[],
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
    for (const name of names) {
      if (name === "notes") {
        const store = SqliteNotesStore.open(db, storeOptions);
        closers.push(() => store.close());
        if (options.demo) await seedNotes(store);
        packs.push(notesPack({ store: watched(store) }));
      } else if (name === "tickets") {
        const store = SqliteTicketsStore.open(db, storeOptions);
        closers.push(() => store.close());
        if (options.demo) await seedTickets(store);
        packs.push(ticketsPack({ store: watched(store) }));
      } else {
        const store = SqliteCrmStore.open(db, storeOptions);
        closers.push(() => store.close());
        if (options.demo) await seedCrm(store);
        packs.push(crmPack({ store: watched(store), timeoutMs: options.crmTimeoutMs }));
      }
    }
    // The tasks extension's table, on a connection of its own (it also makes the file with no pack).
    if (!options.readOnly) {
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
