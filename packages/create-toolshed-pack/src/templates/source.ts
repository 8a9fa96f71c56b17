import { constantPrefix, sortedNames, type TemplateContext, toolNames } from "./context.js";

/** `Item` and the store interface, in the order Biome sorts them. */
function storeTypes(ctx: TemplateContext): string {
  return sortedNames(`${ctx.names.pascal}Store`, "Item");
}

// The pack's source files. Generated code follows the house style of the Toolshed packs: one
// tool per file with its schemas, every property described, bounded inputs, an output schema
// and annotations, errors that say what would work.

export function indexTs(ctx: TemplateContext): string {
  const { camel, pascal, packageName } = ctx.names;
  const prefix = constantPrefix(ctx);
  return `/**
 * ${packageName}: the ${ctx.names.pack} pack (tools, a resource, a prompt) and its SQLite store.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { type ${pascal}PackOptions, ${camel}Pack } from "./pack.js";
export { itemUri } from "./resources/item.js";
export { ITEM_LIMITS } from "./schemas.js";
export { ${prefix}_MIGRATION_SCOPE, ${prefix}_SQLITE_MIGRATIONS } from "./sqlite/migrations.js";
export { Sqlite${pascal}Store, type Sqlite${pascal}StoreOptions } from "./sqlite/store.js";
export type { ${storeTypes(ctx)} } from "./store.js";
export { toolshedPack } from "./toolshed-pack.js";
`;
}

/** The pack's entry point, which Toolshed servers read from a config file. */
export function toolshedPackTs(ctx: TemplateContext): string {
  const { camel, pascal, pack, packageName } = ctx.names;
  return `import { createRequire } from "node:module";
import { definePackDescriptor } from "@toolshed/schema";
import { ${camel}Pack } from "./pack.js";
import { Sqlite${pascal}Store } from "./sqlite/store.js";
import type { ${pascal}Store } from "./store.js";

// package.json sits one folder up from both src/ and dist/, and is always published.
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * The pack's entry point: a Toolshed server opens its store and mounts it from a config file
 * (\`"packs": { "${packageName}": {} }\` in toolshed.config.json), with no server code. Add options
 * (a Zod object, every property described) and a PostgreSQL store here as the pack grows.
 */
export const toolshedPack = definePackDescriptor<${pascal}Store>({
  name: ${JSON.stringify(pack)},
  version,
  description: "Items: add one and read it back, with an item resource and a review prompt",
  stores: {
    sqlite: () => ({ schema: Sqlite${pascal}Store.schema, open: (path, options) => Sqlite${pascal}Store.open(path, options) }),
  },
  pack: ({ store }) => ${camel}Pack({ store }),
});
`;
}

export function packTs(ctx: TemplateContext): string {
  const { camel, pascal, pack } = ctx.names;
  return `import { definePack, type Pack } from "@toolshed/schema";
import { reviewItemPrompt } from "./prompts/review_item.js";
import { itemResource } from "./resources/item.js";
import type { ${pascal}Store } from "./store.js";
import { addItemTool } from "./tools/add_item.js";
import { getItemTool } from "./tools/get_item.js";

export interface ${pascal}PackOptions {
  store: ${pascal}Store;
  /** Close the store when the server that mounts the pack closes (default false: the caller owns it). */
  closeStore?: boolean;
}

/** The ${pack} tools, the item resource and the review prompt over one store. */
export function ${camel}Pack(options: ${pascal}PackOptions): Pack {
  const { store } = options;
  return definePack({
    name: ${JSON.stringify(pack)},
    tools: [getItemTool(store), addItemTool(store)],
    resources: [itemResource(store)],
    prompts: [reviewItemPrompt(store)],
    close: options.closeStore ? () => store.close() : undefined,
  });
}
`;
}

export function storeTs(ctx: TemplateContext): string {
  const { pascal } = ctx.names;
  return `/** An item as stored. */
export interface Item {
  /** 1, 2, 3…: given by the store, never reused. */
  id: number;
  text: string;
  /** When it was added (ISO 8601, UTC). */
  created_at: string;
}

/**
 * Where items live. Every method is async so that a networked database (PostgreSQL) can implement
 * the same interface; the tools only ever talk to this.
 */
export interface ${pascal}Store {
  /** The item with this id, or undefined. */
  getItem(id: number): Promise<Item | undefined>;
  /** Adds an item with the next id. */
  addItem(text: string): Promise<Item>;
  /** The ids of the newest items, newest first, at most \`limit\`: for hints and lists. */
  recentIds(limit: number): Promise<number[]>;
  close(): Promise<void>;
}
`;
}

export function schemasTs(): string {
  return `import { z } from "zod";
import type { Item } from "./store.js";

/** Bounds on what an item may hold; the tools' schemas and every store keep to them. */
export const ITEM_LIMITS = {
  textMaxChars: 2000,
  maxId: 2_147_483_647,
} as const;

// Shared building blocks; each tool adds its own .describe() so every property says what it is.

export const itemId = z.number().int().min(1).max(ITEM_LIMITS.maxId);

export const itemText = z.string().trim().min(1).max(ITEM_LIMITS.textMaxChars);

/** An id in a URI or a prompt argument, which are text. */
export const itemIdText = z.string().regex(/^[1-9][0-9]{0,9}$/);

export const itemOutput = z.object({
  id: z.number().int().min(1).describe("Id of the item; pass it to get the item again"),
  text: z.string().describe("Text of the item"),
  created_at: z.string().describe("When the item was added (ISO 8601, UTC)"),
});

export function toItemOutput(item: Item): z.output<typeof itemOutput> {
  return { id: item.id, text: item.text, created_at: item.created_at };
}
`;
}

export function notFoundTs(ctx: TemplateContext): string {
  const { pascal } = ctx.names;
  const { add } = toolNames(ctx);
  return `import { NotFoundError } from "@toolshed/errors";
import type { ${pascal}Store } from "./store.js";

const SHOWN = 10;

/** The not-found error for an id, naming ids that exist so the model can pick one. */
export async function itemNotFound(store: ${pascal}Store, id: number): Promise<NotFoundError> {
  const ids = await store.recentIds(SHOWN);
  if (ids.length === 0) {
    return new NotFoundError(\`No item \${id}. There are no items yet; add one with ${add}\`);
  }
  return new NotFoundError(\`No item \${id}. Newest ids: \${ids.join(", ")}\`);
}
`;
}

export function getItemTs(ctx: TemplateContext): string {
  const { pascal } = ctx.names;
  const { get, add } = toolNames(ctx);
  return `import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { itemNotFound } from "../not-found.js";
import { itemId, itemOutput, toItemOutput } from "../schemas.js";
import type { ${pascal}Store } from "../store.js";

export const getItemInput = z.object({
  id: itemId.describe("Id of the item, e.g. 1; ${add} returns it"),
});

export function getItemTool(store: ${pascal}Store) {
  return defineTool({
    name: ${JSON.stringify(get)},
    title: "Get item",
    description: "Return one item by its id: its text and when it was added. Add items with ${add}.",
    input: getItemInput,
    output: itemOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async ({ id }) => {
      const item = await store.getItem(id);
      if (!item) throw await itemNotFound(store, id);
      return toItemOutput(item);
    },
  });
}
`;
}

export function addItemTs(ctx: TemplateContext): string {
  const { pascal } = ctx.names;
  const { get, add } = toolNames(ctx);
  return `import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { itemUri } from "../resources/item.js";
import { ITEM_LIMITS, itemOutput, itemText, toItemOutput } from "../schemas.js";
import type { ${pascal}Store } from "../store.js";

export const addItemInput = z.object({
  text: itemText.describe(\`Text of the new item, 1-\${ITEM_LIMITS.textMaxChars} characters, trimmed\`),
});

export function addItemTool(store: ${pascal}Store) {
  return defineTool({
    name: ${JSON.stringify(add)},
    title: "Add item",
    description: "Add an item and return it with its new id. Read it again later with ${get}.",
    input: addItemInput,
    output: itemOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async ({ text }, ctx) => {
      const item = await store.addItem(text);
      ctx.resourceListChanged?.();
      ctx.resourceUpdated?.(itemUri(item.id));
      return toItemOutput(item);
    },
  });
}
`;
}

export function itemResourceTs(ctx: TemplateContext): string {
  const { pascal, scheme } = ctx.names;
  return `import { defineResourceTemplate } from "@toolshed/schema";
import { z } from "zod";
import { itemNotFound } from "../not-found.js";
import { itemIdText } from "../schemas.js";
import type { ${pascal}Store } from "../store.js";

const LISTED = 50;

/** The URI of an item. */
export function itemUri(id: number): string {
  return \`${scheme}://items/\${id}\`;
}

export function itemResource(store: ${pascal}Store) {
  return defineResourceTemplate({
    uriTemplate: "${scheme}://items/{id}",
    name: "item",
    title: "Item",
    description: \`An item's text, by its id. resources/list shows the newest \${LISTED} items.\`,
    mimeType: "text/plain",
    params: z.object({ id: itemIdText.describe("Id of the item, e.g. 1") }),
    list: async () => (await store.recentIds(LISTED)).map((id) => ({ uri: itemUri(id), name: \`item \${id}\` })),
    read: async ({ id: raw }) => {
      const id = Number(raw);
      const item = await store.getItem(id);
      if (!item) throw await itemNotFound(store, id);
      return item.text;
    },
  });
}
`;
}

export function reviewPromptTs(ctx: TemplateContext): string {
  const { pascal, pack } = ctx.names;
  return `import { definePrompt } from "@toolshed/schema";
import { z } from "zod";
import { itemNotFound } from "../not-found.js";
import { itemIdText } from "../schemas.js";
import type { ${pascal}Store } from "../store.js";

export function reviewItemPrompt(store: ${pascal}Store) {
  return definePrompt({
    name: ${JSON.stringify(`${pack}_review_item`)},
    title: "Review item",
    description: "Ask the model to review one item and suggest improvements",
    // Prompt arguments arrive as strings.
    args: z.object({ id: itemIdText.describe("Id of the item to review, e.g. 1") }),
    render: async ({ id: raw }) => {
      const id = Number(raw);
      const item = await store.getItem(id);
      if (!item) throw await itemNotFound(store, id);
      const ask = \`Review item \${item.id} and suggest up to three improvements.\`;
      return [ask, "", "<item>", item.text, "</item>"].join("\\n");
    },
  });
}
`;
}

export function migrationsTs(ctx: TemplateContext): string {
  const { pack, snake } = ctx.names;
  const prefix = constantPrefix(ctx);
  return `import type { Migration } from "@toolshed/storage";

/** Scope of this pack's versions in toolshed_migrations, so packs can share one database file. */
export const ${prefix}_MIGRATION_SCOPE = ${JSON.stringify(pack)};

/** Append only: a released migration never changes, so older files upgrade in place. */
export const ${prefix}_SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "items",
    up: \`
      CREATE TABLE ${snake}_items (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    \`,
  },
];
`;
}

export function sqliteStoreTs(ctx: TemplateContext): string {
  const { pascal, snake } = ctx.names;
  const table = `${snake}_items`;
  const prefix = constantPrefix(ctx);
  const types = storeTypes(ctx);
  return `import { openSqliteStore, type SqliteDatabase, type SqliteDriverChoice } from "@toolshed/storage";
import type { ${types} } from "../store.js";
import { ${prefix}_MIGRATION_SCOPE, ${prefix}_SQLITE_MIGRATIONS } from "./migrations.js";

export interface Sqlite${pascal}StoreOptions {
  /** How long a write waits for another connection's lock before failing as busy (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Clock for created_at; tests pass a fixed one. */
  now?: () => Date;
  /** Open an existing file without writing to it (no migrations; its tables must be current). */
  readonly?: boolean;
  /** Which SQLite driver opens the file (default \`auto\`: node:sqlite on Node 22.16 or later, else better-sqlite3). */
  driver?: SqliteDriverChoice;
}

const MAX_LIMIT = 100;
const GET_SQL = "SELECT id, text, created_at FROM ${table} WHERE id = ?";
const ADD_SQL = "INSERT INTO ${table} (text, created_at) VALUES (?, ?)";
const RECENT_SQL = "SELECT id FROM ${table} ORDER BY id DESC LIMIT ?";

/** ${pascal}Store on SQLite (better-sqlite3, WAL): several processes can share one file. */
export class Sqlite${pascal}Store implements ${pascal}Store {
  readonly #db: SqliteDatabase;
  readonly #now: () => Date;

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: ${prefix}_MIGRATION_SCOPE, migrations: ${prefix}_SQLITE_MIGRATIONS };

  private constructor(db: SqliteDatabase, now: () => Date) {
    this.#db = db;
    this.#now = now;
  }

  /**
   * Opens (creating or upgrading in place) a database at a file path, or \`:memory:\`. A file from
   * a newer release of this pack is refused before anything is written to it.
   */
  static open(path: string, options: Sqlite${pascal}StoreOptions = {}): Sqlite${pascal}Store {
    const db = openSqliteStore(path, {
      schema: Sqlite${pascal}Store.schema,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      readonly: options.readonly ?? false,
      ...(options.driver === undefined ? {} : { driver: options.driver }),
    });
    return new Sqlite${pascal}Store(db, options.now ?? (() => new Date()));
  }

  async getItem(id: number): Promise<Item | undefined> {
    return this.#db.prepare(GET_SQL).get(id) as Item | undefined;
  }

  async addItem(text: string): Promise<Item> {
    const created_at = this.#now().toISOString();
    const { lastInsertRowid } = this.#db.prepare(ADD_SQL).run(text, created_at);
    return { id: Number(lastInsertRowid), text, created_at };
  }

  async recentIds(limit: number): Promise<number[]> {
    const bounded = Math.max(1, Math.min(MAX_LIMIT, Math.floor(limit)));
    return this.#db.prepare(RECENT_SQL).pluck().all(bounded) as number[];
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
`;
}

export function stdioExampleTs(ctx: TemplateContext): string {
  const { camel, pascal, packageName } = ctx.names;
  return `// Serves the pack over stdio, for an MCP client or the MCP Inspector: run it with a TypeScript
// runner (\`npx tsx examples/stdio.ts\`). The pack itself never imports the server.
import { createServer, StdioTransport } from "@toolshed/server";
import { ${sortedNames(`Sqlite${pascal}Store`, `${camel}Pack`)} } from "../src/index.js";

// A file path keeps items between runs (created and upgraded in place); ":memory:" does not.
const store = Sqlite${pascal}Store.open(process.env.ITEMS_DB ?? "items.db");
const server = createServer({
  name: ${JSON.stringify(packageName)},
  version: "0.1.0",
  packs: [${camel}Pack({ store, closeStore: true })],
});
await server.connect(new StdioTransport());
`;
}
