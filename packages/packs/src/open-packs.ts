import { crmPack, SqliteCrmBackend, seedDemo as seedCrm } from "@toolshed/crm";
import { notesPack, SqliteNotesStore, seedDemo as seedNotes } from "@toolshed/notes";
import type { Pack } from "@toolshed/schema";
import { openSqlite } from "@toolshed/storage";
import { SqliteTicketsStore, seedDemo as seedTickets, ticketsPack } from "@toolshed/tickets";

/** The packs the servers can serve, in the order they are listed. */
export const PACK_NAMES = ["notes", "tickets", "crm"] as const;
export type PackName = (typeof PACK_NAMES)[number];

/** A value a user passed that cannot work; the message says what would. */
export class PackConfigError extends Error {}

/** Reads `notes,tickets` (spaces and case ignored); unknown names fail with the valid list. */
export function parsePackList(value: string): PackName[] {
  const names = value
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  if (names.length === 0)
    throw new PackConfigError(`no packs given; use a comma-separated list of ${PACK_NAMES.join(", ")}`);
  const unknown = names.filter((n) => !(PACK_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new PackConfigError(
      `unknown pack ${unknown.map((n) => `"${n}"`).join(", ")}; choose from ${PACK_NAMES.join(", ")}`,
    );
  }
  return [...new Set(names)] as PackName[];
}

export interface OpenPacksOptions {
  /** SQLite file (created with its folders) or `:memory:`. */
  db: string;
  packs?: readonly PackName[];
  /** Seed demo data into stores that are empty of it (idempotent). */
  demo?: boolean;
  /** Backend timeout of the CRM pack in ms. */
  crmTimeoutMs?: number;
}

export interface OpenedPacks {
  packs: Pack[];
  names: PackName[];
  /** True when the database answers a query. */
  ready(): Promise<boolean>;
  /** Closes every store; safe to call twice. */
  close(): Promise<void>;
}

/** Opens the chosen packs on one SQLite database; stores close with `close()`, not with a server. */
export async function openPacks(options: OpenPacksOptions): Promise<OpenedPacks> {
  const names = [...(options.packs ?? PACK_NAMES)];
  const closers: Array<() => Promise<void>> = [];
  const packs: Pack[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    for (const name of names) {
      if (name === "notes") {
        const store = SqliteNotesStore.open(options.db);
        closers.push(() => store.close());
        if (options.demo) await seedNotes(store);
        packs.push(notesPack({ store }));
      } else if (name === "tickets") {
        const store = SqliteTicketsStore.open(options.db);
        closers.push(() => store.close());
        if (options.demo) await seedTickets(store);
        packs.push(ticketsPack({ store }));
      } else {
        const backend = SqliteCrmBackend.open(options.db);
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
  const probe = options.db === ":memory:" ? undefined : openSqlite(options.db, { readonly: true });
  let closed = false;
  return {
    packs,
    names,
    async ready() {
      if (closed) return false;
      try {
        probe?.prepare("SELECT 1").get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      probe?.close();
      await closeAll();
    },
  };
}
