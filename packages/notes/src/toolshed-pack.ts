import { createRequire } from "node:module";
import { definePackDescriptor } from "@toolshed/schema";
import { notesPack } from "./pack.js";
import { seedDemo } from "./seed.js";
import { SqliteNotesStore } from "./sqlite/store.js";
import type { NotesStore } from "./store.js";

// package.json sits one folder up from both src/ and dist/, and is always published.
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * The notes pack's entry point: a Toolshed server opens its store (SQLite or PostgreSQL) and
 * mounts it from a config file (`"packs": { "notes": {} }`), with no code.
 */
export const toolshedPack = definePackDescriptor<NotesStore>({
  name: "notes",
  version,
  description: "Notes: get, search, list, create, update and delete notes, with a note resource and a summary prompt",
  stores: {
    sqlite: () => ({ schema: SqliteNotesStore.schema, open: (path, options) => SqliteNotesStore.open(path, options) }),
    postgres: async () => {
      const { PostgresNotesStore } = await import("./postgres/store.js");
      return {
        schema: PostgresNotesStore.schema,
        open: (pool, options) => PostgresNotesStore.open({ pool: pool as never }, options),
      };
    },
  },
  seedDemo,
  pack: ({ store }) => notesPack({ store }),
});
