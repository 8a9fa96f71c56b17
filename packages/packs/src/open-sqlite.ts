import { resolve } from "node:path";
import { crmPack, SqliteCrmBackend, seedDemo as seedCrm } from "@toolshed/crm";
import { notesPack, SqliteNotesStore, seedDemo as seedNotes } from "@toolshed/notes";
import type { Pack } from "@toolshed/schema";
import { checkSqliteSchemas, openSqlite } from "@toolshed/storage";
import { SqliteTicketsStore, seedDemo as seedTickets, ticketsPack } from "@toolshed/tickets";
import { explainDatabaseError } from "./database-errors.js";
import type { PackName } from "./pack-names.js";
import type { OpenedStores } from "./stores.js";

export interface SqlitePacksOptions {
  demo?: boolean;
  crmTimeoutMs?: number;
  /** Open the file read-only: nothing written, tables must be current (`:memory:` stays writable). */
  readOnly?: boolean;
  idempotencyRetentionMs?: number;
}

const SCHEMAS = {
  notes: SqliteNotesStore.schema,
  tickets: SqliteTicketsStore.schema,
  crm: SqliteCrmBackend.schema,
} as const;

/** The chosen packs on one SQLite file (or `:memory:`), with a read-only probe connection. */
export async function openSqlitePacks(
  db: string,
  names: readonly PackName[],
  options: SqlitePacksOptions,
): Promise<OpenedStores> {
  const readonly = (options.readOnly ?? false) && db !== ":memory:";
  const demo = options.demo ?? false;
  try {
    // Every pack's tables are checked before any store writes to the file.
    checkSqliteSchemas(
      db,
      names.map((name) => SCHEMAS[name]),
      { readonly: readonly && !demo },
    );
    if (readonly && demo) {
      // --demo writes its data first; then the file is served read-only.
      await (await openStores(db, names, { ...options, readOnly: false })).close();
    }
    return await openStores(db, names, { ...options, readOnly: readonly, demo: demo && !readonly });
  } catch (error) {
    const database = db === ":memory:" ? db : resolve(db);
    throw explainDatabaseError(error, { database, readOnly: options.readOnly ?? false, demo });
  }
}

async function openStores(db: string, names: readonly PackName[], options: SqlitePacksOptions): Promise<OpenedStores> {
  const closers: Array<() => Promise<void>> = [];
  const packs: Pack[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  const storeOptions = {
    readonly: options.readOnly ?? false,
    ...(options.idempotencyRetentionMs === undefined ? {} : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
  };
  try {
    for (const name of names) {
      if (name === "notes") {
        const store = SqliteNotesStore.open(db, storeOptions);
        closers.push(() => store.close());
        if (options.demo) await seedNotes(store);
        packs.push(notesPack({ store }));
      } else if (name === "tickets") {
        const store = SqliteTicketsStore.open(db, storeOptions);
        closers.push(() => store.close());
        if (options.demo) await seedTickets(store);
        packs.push(ticketsPack({ store }));
      } else {
        const backend = SqliteCrmBackend.open(db, storeOptions);
        closers.push(() => backend.close());
        if (options.demo) await seedCrm(backend);
        packs.push(crmPack({ backend, closeBackend: false, timeoutMs: options.crmTimeoutMs }));
      }
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  // A connection of its own for health checks, so a check never waits behind a tool's write.
  const probe = db === ":memory:" ? undefined : openSqlite(db, { readonly: true });
  return {
    packs,
    async ping() {
      probe?.prepare("SELECT 1").get();
    },
    async close() {
      probe?.close();
      await closeAll();
    },
  };
}
