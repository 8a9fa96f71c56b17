import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectInMemory, createServer, type ToolshedServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteTicketsStore, ticketsPack } from "../src/index.js";
import { call, captureLogger, type Harness, rowCounts, startHarness, tempDir } from "./helpers.js";

describe("racing idempotent creates through the Client", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("20 concurrent create_ticket calls with one key make one ticket and get equal answers", async () => {
    const harness = await startHarness();
    h = harness;
    const args = { title: "Checkout broken", body: "Pay button does nothing.", idempotency_key: "7d1f" };
    const results = await Promise.all(Array.from({ length: 20 }, () => call(harness.client, "create_ticket", args)));
    for (const r of results) {
      expect(r.isError).toBeFalsy();
      expect(r).toEqual(results[0]);
    }
    expect(results[0]?.structuredContent).toMatchObject({ id: "T-1001", title: "Checkout broken" });
    expect(rowCounts(h.raw)).toEqual({ tickets: 1, comments: 0, idempotency: 1, fts: 1 });
  });

  it("20 concurrent add_ticket_comment calls with one key add one comment", async () => {
    const harness = await startHarness();
    h = harness;
    await h.store.createTicket({ title: "T", body: "B", priority: "low" });
    const args = { id: "T-1001", body: "Same comment", idempotency_key: "c-7d1f" };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(harness.client, "add_ticket_comment", args)),
    );
    for (const r of results) expect(r).toEqual(results[0]);
    expect(results[0]?.structuredContent).toMatchObject({ comment_count: 1 });
    expect(rowCounts(h.raw).comments).toBe(1);
  });

  it("two servers, each with its own store on one file, still make one ticket per key", async () => {
    const { dir, cleanup } = tempDir();
    const file = join(dir, "shared.db");
    const stores = [SqliteTicketsStore.open(file), SqliteTicketsStore.open(file)];
    const servers: ToolshedServer[] = stores.map((store, i) =>
      createServer({ name: `s${i}`, version: "1", packs: [ticketsPack({ store })], logger: captureLogger().logger }),
    );
    const clients: Client[] = await Promise.all(servers.map((s) => connectInMemory(s)));
    try {
      const args = { title: "Shared", body: "From two instances", priority: "high", idempotency_key: "two-instances" };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(clients[i % 2] as Client, "create_ticket", args)),
      );
      for (const r of results) expect(r).toEqual(results[0]);
      const raw = openSqlite(file);
      expect(rowCounts(raw)).toEqual({ tickets: 1, comments: 0, idempotency: 1, fts: 1 });
      raw.close();
      const conflict = await call(clients[1] as Client, "create_ticket", { ...args, priority: "low" });
      expect(conflict._meta?.["toolshed.dev/error"]).toMatchObject({ code: "conflict" });
    } finally {
      for (const c of clients) await c.close();
      for (const s of servers) await s.close();
      for (const s of stores) await s.close();
      cleanup();
    }
  });
});
