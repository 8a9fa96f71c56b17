import { crmPack, seedDemo as seedCrm } from "@toolshed/crm";
import { notesPack, seedDemo as seedNotes } from "@toolshed/notes";
import type { Pack } from "@toolshed/schema";
import { seedDemo as seedTickets, ticketsPack } from "@toolshed/tickets";
import { DatabaseConnectError, redactDatabaseUrl } from "./database-url.js";
import type { PackName } from "./pack-names.js";
import type { OpenedStores } from "./stores.js";

export interface PostgresPacksOptions {
  /** Tables live in this schema, created when missing (default: the server's search_path). */
  schema?: string;
  /** Connections in this process's pool (default 10). */
  poolMax?: number;
  demo?: boolean;
  crmTimeoutMs?: number;
}

/**
 * The chosen packs on one PostgreSQL pool, shared by the three stores and the readiness probe.
 * pg and the stores are imported only here, when a database URL is given, so SQLite-only use
 * never loads them.
 */
export async function openPostgresPacks(
  url: string,
  names: readonly PackName[],
  options: PostgresPacksOptions,
): Promise<OpenedStores> {
  const { createPgPool, pgIdentifier } = await import("@toolshed/storage/postgres");
  const schema = options.schema;
  const pool = createPgPool(url, {
    max: options.poolMax ?? 10,
    ...(schema === undefined ? {} : { schema }),
  });
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
    await pool.end().catch(() => {});
  };
  const packs: Pack[] = [];
  try {
    try {
      await pool.query("SELECT 1");
    } catch (error) {
      throw new DatabaseConnectError(
        `cannot connect to PostgreSQL at ${redactDatabaseUrl(url)} (${(error as Error).message}); check --database-url and that the server is running`,
      );
    }
    if (schema !== undefined) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${pgIdentifier(schema)}`);
    for (const name of names) {
      if (name === "notes") {
        const { PostgresNotesStore } = await import("@toolshed/notes/postgres");
        const store = await PostgresNotesStore.open({ pool });
        closers.push(() => store.close());
        if (options.demo) await seedNotes(store);
        packs.push(notesPack({ store }));
      } else if (name === "tickets") {
        const { PostgresTicketsStore } = await import("@toolshed/tickets/postgres");
        const store = await PostgresTicketsStore.open({ pool });
        closers.push(() => store.close());
        if (options.demo) await seedTickets(store);
        packs.push(ticketsPack({ store }));
      } else {
        const { PostgresCrmBackend } = await import("@toolshed/crm/postgres");
        const backend = await PostgresCrmBackend.open({ pool });
        closers.push(() => backend.close());
        if (options.demo) await seedCrm(backend);
        packs.push(crmPack({ backend, closeBackend: false, timeoutMs: options.crmTimeoutMs }));
      }
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  return {
    packs,
    async ping() {
      await pool.query("SELECT 1");
    },
    close: closeAll,
  };
}
