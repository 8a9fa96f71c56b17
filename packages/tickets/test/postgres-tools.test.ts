import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectInMemory, createServer, type ToolshedServer } from "@toolshed/server";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedDemo, ticketsPack } from "../src/index.js";
import { PostgresTicketsStore } from "../src/postgres/index.js";
import { call, captureLogger, errorMeta, text } from "./helpers.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tickets tool tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

/** A server with the tickets pack on `store`, and a real SDK Client connected to it. */
async function serve(store: PostgresTicketsStore, name: string) {
  const logs = captureLogger();
  const server = createServer({ name, version: "1.0.0", packs: [ticketsPack({ store })], logger: logs.logger });
  const client = await connectInMemory(server);
  return { server, client, logs };
}

describe.skipIf(!reachable)("the tickets tools on PostgreSQL", { timeout: 30_000 }, () => {
  let db: TestSchema;
  const closers: Array<() => Promise<unknown>> = [];
  beforeEach(async () => {
    db = await createTestSchema();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await db.drop();
  });
  const track = <T extends { close(): Promise<unknown> }>(thing: T): T => {
    closers.push(() => thing.close());
    return thing;
  };
  async function open(options: { statementTimeoutMs?: number } = {}): Promise<PostgresTicketsStore> {
    return track(await PostgresTicketsStore.open({ pool: db.pool({ max: 5, ...options }) }));
  }

  it("search_tickets finds the demo tickets best first, with marked snippets", async () => {
    const store = await open();
    await seedDemo(store);
    const { server, client } = await serve(store, "search");
    track(server);
    track(client);
    const found = await call(client, "search_tickets", { query: "password reset" });
    expect(found.isError).toBeFalsy();
    const hits = (found.structuredContent as { result: Array<{ id: string; title: string; snippet: string }> }).result;
    // The same order as on SQLite: both words in T-1009's title and body, T-1001 has "resetting".
    expect(hits.map((h) => h.id)).toEqual(["T-1009", "T-1001"]);
    for (const hit of hits) expect(hit.snippet).toMatch(/\*\*(password|reset)\w*\*\*/i);
    // The long body of T-1001 is cut, and the cut is shown as SQLite shows it.
    const long = hits.find((h) => h.id === "T-1001");
    expect(long?.snippet).toMatch(/…$/);
    expect(JSON.parse(text(found))).toEqual(hits);

    const closed = await call(client, "search_tickets", { query: "currency", status: "closed" });
    expect((closed.structuredContent as { result: Array<{ id: string }> }).result.map((h) => h.id)).toEqual(["T-1002"]);
    const nothing = await call(client, "search_tickets", { query: '"; DROP TABLE tickets; --' });
    expect(nothing.structuredContent).toEqual({ result: [] });
  });

  it("20 racing create_ticket calls with one key on two store instances (two pools) make one ticket", async () => {
    const stores = [await open(), await open()];
    const servers: ToolshedServer[] = [];
    const clients: Client[] = [];
    for (const [i, store] of stores.entries()) {
      const { server, client } = await serve(store, `instance-${i}`);
      servers.push(track(server));
      clients.push(track(client));
    }
    const args = { title: "Checkout broken", body: "Pay button does nothing.", idempotency_key: "two-pools" };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(clients[i % 2] as Client, "create_ticket", args)),
    );
    for (const r of results) {
      expect(r.isError).toBeFalsy();
      // Replays come back in the same shape and the same JSON text as the first answer.
      expect(r).toEqual(results[0]);
      expect(text(r)).toBe(text(results[0] as never));
    }
    expect(results[0]?.structuredContent).toMatchObject({ id: "T-1001", title: "Checkout broken" });
    const raw = db.pool({ max: 1 });
    const counts = await raw.query(
      `SELECT (SELECT COUNT(*)::int FROM tickets) AS tickets,
              (SELECT COUNT(*)::int FROM toolshed_idempotency) AS keys`,
    );
    expect(counts.rows[0]).toEqual({ tickets: 1, keys: 1 });
    const conflict = await call(clients[1] as Client, "create_ticket", { ...args, priority: "urgent" });
    expect(conflict.isError).toBe(true);
    expect(errorMeta(conflict)).toMatchObject({ kind: "tool", code: "conflict", retryable: false });
    const seen = await call(clients[1] as Client, "get_ticket", { id: "T-1001" });
    expect(seen.structuredContent).toMatchObject({ title: "Checkout broken", comment_count: 0 });
  });

  it("C10: a statement timeout reaches the caller as a retryable timeout, never as internal", async () => {
    await (await open()).createTicket({ title: "Locked", body: "b", priority: "low" });
    // A second instance with a short statement timeout; another connection holds the row lock.
    const store = await open({ statementTimeoutMs: 300 });
    const { server, client, logs } = await serve(store, "timeout");
    track(server);
    track(client);
    const locker = await db.pool({ max: 1 }).connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT num FROM tickets WHERE num = 1001 FOR UPDATE");
      const result = await call(client, "update_ticket_status", { id: "T-1001", status: "closed", resolution: "x" });
      expect(result.isError).toBe(true);
      expect(errorMeta(result)).toMatchObject({ kind: "tool", code: "timeout", retryable: true });
      expect(text(result)).toMatch(
        /^Error executing tool update_ticket_status: the database query timed out \(ref [0-9a-f]{8}\); temporary failure, safe to retry$/,
      );
      expect(text(result)).not.toContain("canceling statement");
      expect(logs.lines.some((l) => JSON.stringify(l).includes("57014"))).toBe(true);
      // Reads do not wait for row locks.
      expect((await call(client, "get_ticket", { id: "T-1001" })).isError).toBeFalsy();
    } finally {
      await locker.query("ROLLBACK");
      locker.release();
    }
    const retried = await call(client, "update_ticket_status", { id: "T-1001", status: "closed", resolution: "x" });
    expect(retried.structuredContent).toMatchObject({ status: "closed", changed: true });
  });

  it("bulk_update_ticket_status: a locked ticket times out on its own, retryable; the others are closed", async () => {
    const seeding = await open();
    for (const title of ["Locked", "Free", "Also free"]) {
      await seeding.createTicket({ title, body: "b", priority: "low" });
    }
    const store = await open({ statementTimeoutMs: 300 });
    const { server, client } = await serve(store, "bulk");
    track(server);
    track(client);
    const locker = await db.pool({ max: 1 }).connect();
    let result: Awaited<ReturnType<typeof call>>;
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT num FROM tickets WHERE num = 1001 FOR UPDATE");
      result = await call(client, "bulk_update_ticket_status", {
        ids: ["T-1001", "T-1002", "T-9999", "T-1003"],
        status: "closed",
        resolution: "Fixed",
      });
    } finally {
      await locker.query("ROLLBACK");
      locker.release();
    }
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({
      succeeded_count: 2,
      failed_count: 2,
      succeeded: [
        { id: "T-1002", previous_status: "open", status: "closed", changed: true },
        { id: "T-1003", previous_status: "open", status: "closed", changed: true },
      ],
      failed: [
        { id: "T-1001", reason: "timeout", retryable: true },
        { id: "T-9999", reason: "not_found", retryable: false },
      ],
    });
    expect((await store.getTicket("T-1001")).status).toBe("open");
    expect((await store.getTicket("T-1003")).status).toBe("closed");
  });
});
