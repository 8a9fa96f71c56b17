import { createRequire } from "node:module";
import { definePackDescriptor } from "@toolshed/schema";
import { z } from "zod";
import { crmPack, DEFAULT_STORE_TIMEOUT_MS } from "./pack.js";
import { seedDemo } from "./seed.js";
import { SqliteCrmStore } from "./sqlite/store.js";
import type { CrmStore } from "./store.js";

// package.json sits one folder up from both src/ and dist/, and is always published.
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const options = z
  .object({
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .max(600_000)
      .optional()
      .describe(
        `How long one store call may take, in ms, before it is a retryable timeout (default ${DEFAULT_STORE_TIMEOUT_MS})`,
      ),
  })
  .strict();

/**
 * The crm pack's entry point: a Toolshed server opens its store (SQLite or PostgreSQL) and
 * mounts it from a config file (`"packs": { "crm": {} }`), with no code.
 */
export const toolshedPack = definePackDescriptor<CrmStore, z.output<typeof options>>({
  name: "crm",
  version,
  description:
    "CRM accounts: search, read and create accounts and change their tiers in bulk, with an account resource and a brief prompt",
  options,
  stores: {
    sqlite: () => ({ schema: SqliteCrmStore.schema, open: (path, options) => SqliteCrmStore.open(path, options) }),
    postgres: async () => {
      const { PostgresCrmStore } = await import("./postgres/store.js");
      return {
        schema: PostgresCrmStore.schema,
        open: (pool, options) => PostgresCrmStore.open({ pool: pool as never }, options),
      };
    },
  },
  seedDemo,
  pack: ({ store, options }) =>
    crmPack({ store, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }),
});
