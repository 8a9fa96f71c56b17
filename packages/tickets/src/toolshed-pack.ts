import { createRequire } from "node:module";
import { definePackDescriptor } from "@toolshed/schema";
import { ticketsPack } from "./pack.js";
import { seedDemo } from "./seed.js";
import { SqliteTicketsStore } from "./sqlite/store.js";
import type { TicketsStore } from "./store.js";

// package.json sits one folder up from both src/ and dist/, and is always published.
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * The tickets pack's entry point: a Toolshed server opens its store (SQLite or PostgreSQL) and
 * mounts it from a config file (`"packs": { "tickets": {} }`), with no code.
 */
export const toolshedPack = definePackDescriptor<TicketsStore>({
  name: "tickets",
  version,
  description:
    "Tickets: search, read, create, comment on and change the status of tickets (one at a time or in bulk), with a ticket resource and a triage prompt",
  stores: {
    sqlite: () => ({
      schema: SqliteTicketsStore.schema,
      open: (path, options) => SqliteTicketsStore.open(path, options),
    }),
    postgres: async () => {
      const { PostgresTicketsStore } = await import("./postgres/store.js");
      return {
        schema: PostgresTicketsStore.schema,
        open: (pool, options) => PostgresTicketsStore.open({ pool: pool as never }, options),
      };
    },
  },
  seedDemo,
  pack: ({ store }) => ticketsPack({ store }),
});
