import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createServer, type ToolshedServer } from "@toolshed/server";
import {
  createPgPool,
  createTestSchema,
  pgReachable,
  TEST_DATABASE_URL,
  type TestSchema,
} from "@toolshed/storage/postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO_NOTES } from "../src/demo-notes.js";
import { notesPack } from "../src/pack.js";
import { PostgresNotesStore } from "../src/postgres/index.js";
import { seedDemo } from "../src/seed.js";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import type { NotesStore } from "../src/store.js";
import { captureLogger, errorMeta, text } from "./helpers.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgresNotesStore tool tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

interface Mounted {
  client: Client;
  server: ToolshedServer;
  logs: ReturnType<typeof captureLogger>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The notes pack on `store`, served by a Toolshed server with a real SDK Client connected. */
async function mount(store: NotesStore): Promise<Mounted> {
  const logs = captureLogger();
  const server = createServer({
    name: "notes-pg",
    version: "1.0.0",
    packs: [notesPack({ store })],
    logger: logs.logger,
  });
  const client = await connectInMemory(server);
  return {
    client,
    server,
    logs,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

describe.skipIf(!reachable)("notes tools on PostgresNotesStore", () => {
  let db: TestSchema;
  const open: Array<{ close(): Promise<void> }> = [];

  beforeEach(async () => {
    db = await createTestSchema();
  });

  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
    await db.drop();
  });

  async function storeOn(options: { max?: number; statementTimeoutMs?: number } = {}): Promise<PostgresNotesStore> {
    const store = await PostgresNotesStore.open({ pool: db.pool({ max: 4, ...options }) });
    open.push(store);
    return store;
  }

  async function served(store: NotesStore): Promise<Mounted> {
    const mounted = await mount(store);
    open.push(mounted);
    return mounted;
  }

  it("search_notes on the demo notes finds what SQLite finds, with snippets marked the same way", async () => {
    const pg = await served(await storeOn());
    const sqliteStore = SqliteNotesStore.open(":memory:");
    open.push(sqliteStore);
    const lite = await served(sqliteStore);
    await seedDemo((await storeOn()) as NotesStore);
    await seedDemo(sqliteStore);

    const hits = await pg.call("search_notes", { query: "milk" });
    expect(hits.isError).toBeFalsy();
    const result = (hits.structuredContent as { result: Array<Record<string, string>> }).result;
    expect(result.map((h) => h.title)).toEqual(["groceries", "pancake recipe"]);
    expect(result[0]).toEqual({ title: "groceries", snippet: "**milk**, eggs", updated_at: expect.any(String) });

    // Every match, not the top 10: the two stores rank ties and near-ties differently (bm25 vs ts_rank_cd).
    const titles = (r: CallToolResult) =>
      (r.structuredContent as { result: Array<{ title: string }> }).result.map((h) => h.title);
    for (const query of ["milk", "eggs", "review", "plan", '"meeting" OR notes', "café", "a"]) {
      const [onPg, onLite] = [
        await pg.call("search_notes", { query, limit: 50 }),
        await lite.call("search_notes", { query, limit: 50 }),
      ];
      expect(new Set(titles(onPg)), query).toEqual(new Set(titles(onLite)));
    }
    expect(DEMO_NOTES.length).toBeGreaterThan(10);
  });

  it("create_note with one idempotency_key raced 20 times over two servers on two pools: exactly one note", async () => {
    const [a, b] = [await served(await storeOn()), await served(await storeOn())];
    const note = { title: "standup", body: "Ana: billing export. Ben: staging migration.", tags: ["work"] };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).call("create_note", { ...note, idempotency_key: "standup-2025-03-03" }),
      ),
    );
    for (const result of results) {
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(results[0]?.structuredContent);
    }
    expect(results[0]?.structuredContent).toMatchObject({ title: "standup", version: 1, tags: ["work"] });
    const listed = await b.call("list_notes");
    expect((listed.structuredContent as { notes: Array<{ title: string }> }).notes.map((n) => n.title)).toEqual([
      "standup",
    ]);
    const rows = await db.pool().query("SELECT count(*)::int AS n FROM notes");
    expect(rows.rows[0].n).toBe(1);

    const other = await a.call("create_note", { title: "other", body: "x", idempotency_key: "standup-2025-03-03" });
    expect(errorMeta(other)).toEqual({ kind: "tool", code: "conflict", retryable: false });
    const again = await b.call("create_note", note);
    expect(text(again)).toBe(
      "Error executing tool create_note: A note titled 'standup' already exists; use update_note to change it",
    );
  });

  it("a statement timeout (a row locked by another connection) reaches the caller as a retryable timeout", async () => {
    const store = await storeOn({ statementTimeoutMs: 300 });
    const tools = await served(store);
    await tools.call("create_note", { title: "todo", body: "call mom" });

    const locker = await db.pool({ max: 1 }).connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM notes WHERE title = 'todo' FOR UPDATE");
      const blocked = await tools.call("update_note", { title: "todo", body: "call dad" });
      expect(blocked.isError).toBe(true);
      expect(errorMeta(blocked)).toMatchObject({ kind: "tool", code: "timeout", retryable: true });
      expect(text(blocked)).toMatch(/^Error executing tool update_note: .*timed out.*safe to retry$/);
    } finally {
      await locker.query("ROLLBACK");
      locker.release();
    }
    // Nothing was half written, and the same call works once the lock is gone.
    expect((await tools.call("get_note", { title: "todo" })).structuredContent).toMatchObject({ body: "call mom" });
    expect((await tools.call("update_note", { title: "todo", body: "call dad" })).structuredContent).toMatchObject({
      version: 2,
    });
  });

  it("a database that stops accepting connections is a retryable unavailable error, never internal", async () => {
    // A loopback proxy in front of PostgreSQL that can be shut, as a crashed or unreachable server is.
    const target = new URL(db.url);
    const sockets = new Set<Socket>();
    const proxy = createTcpServer((downstream) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [downstream, upstream]) {
        sockets.add(s);
        s.on("error", () => {});
        s.on("close", () => sockets.delete(s));
      }
      downstream.pipe(upstream).pipe(downstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const port = (proxy.address() as AddressInfo).port;
    const viaProxy = new URL(db.url);
    viaProxy.port = String(port);
    const pool = createPgPool(viaProxy.toString(), { schema: db.schema, max: 2, connectionTimeoutMs: 3000 });
    open.push({ close: () => pool.end().catch(() => {}) });
    const tools = await served(await PostgresNotesStore.open({ pool }));
    expect((await tools.call("create_note", { title: "todo", body: "x" })).isError).toBeFalsy();

    await new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    // pg drops idle connections whose socket closed; wait for that (bounded) so the next call connects anew.
    for (let i = 0; i < 100 && pool.totalCount > 0; i++) await new Promise((r) => setTimeout(r, 20));

    const result = await tools.call("get_note", { title: "todo" });
    expect(result.isError).toBe(true);
    expect(errorMeta(result)).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
    expect(text(result)).toMatch(/^Error executing tool get_note: .*safe to retry$/);
  });
});
