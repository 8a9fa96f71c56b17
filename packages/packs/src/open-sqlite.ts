import { crmPack, SqliteCrmBackend, seedDemo as seedCrm } from "@toolshed/crm";
import { notesPack, SqliteNotesStore, seedDemo as seedNotes } from "@toolshed/notes";
import type { Pack } from "@toolshed/schema";
import { openSqlite } from "@toolshed/storage";
import { SqliteTicketsStore, seedDemo as seedTickets, ticketsPack } from "@toolshed/tickets";
import type { PackName } from "./pack-names.js";
import type { OpenedStores } from "./stores.js";

/** The chosen packs on one SQLite file (or `:memory:`), with a read-only probe connection. */
export async function openSqlitePacks(
  db: string,
  names: readonly PackName[],
  options: { demo?: boolean; crmTimeoutMs?: number },
): Promise<OpenedStores> {
  const closers: Array<() => Promise<void>> = [];
  const packs: Pack[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    for (const name of names) {
      if (name === "notes") {
        const store = SqliteNotesStore.open(db);
        closers.push(() => store.close());
        if (options.demo) await seedNotes(store);
        packs.push(notesPack({ store }));
      } else if (name === "tickets") {
        const store = SqliteTicketsStore.open(db);
        closers.push(() => store.close());
        if (options.demo) await seedTickets(store);
        packs.push(ticketsPack({ store }));
      } else {
        const backend = SqliteCrmBackend.open(db);
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
