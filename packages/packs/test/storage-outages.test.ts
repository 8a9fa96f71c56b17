import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import type { SqliteDatabase } from "@toolshed/storage";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openPacks } from "../src/index.js";

// The stores' own connections, so a test can limit them: SQLite's max_page_count is per connection.
const connections = vi.hoisted(() => [] as SqliteDatabase[]);
vi.mock("@toolshed/storage", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@toolshed/storage")>();
  return {
    ...actual,
    openSqliteStore: (...args: Parameters<typeof actual.openSqliteStore>) => {
      const db = actual.openSqliteStore(...args);
      connections.push(db);
      return db;
    },
  };
});

const DISK_FULL =
  "the database is full: the disk holding it has no free space, or the file reached its size limit, so nothing was changed; tools that only read still work. The same call can succeed once the server's operator frees disk space or raises the limit";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-outage-"));
  connections.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function serve(opened: Awaited<ReturnType<typeof openPacks>>) {
  const server = createServer({
    name: "t",
    version: "1",
    packs: opened.packs,
    logger: createLogger({ level: "silent" }),
  });
  const client = await connectInMemory(server);
  return {
    client,
    async close() {
      await client.close();
      await opened.close();
    },
  };
}

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text ?? "";
const errorRef = (result: unknown) =>
  (result as { _meta?: Record<string, { ref?: string }> })._meta?.["toolshed.dev/error"]?.ref;
const bigBody = "x".repeat(30_000);

describe("SQLite storage outages while serving (issue 18 item 5)", () => {
  it("a full database is a retryable 'unavailable' naming the full disk; /readyz says the store cannot write until a write succeeds", async () => {
    const opened = await openPacks({ db: join(dir, "full.db"), packs: ["notes"] });
    const { client, close } = await serve(opened);
    try {
      expect(await opened.readiness()).toEqual({ ready: true });
      const first = await client.callTool({ name: "create_note", arguments: { title: "before", body: "fits" } });
      expect(first.isError, text(first)).toBeFalsy();

      expect(connections.length).toBeGreaterThan(0);
      for (const db of connections) db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true })}`);
      const full = await client.callTool({ name: "create_note", arguments: { title: "too-big", body: bigBody } });
      expect(full.isError).toBe(true);
      expect(full._meta?.["toolshed.dev/error"]).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
      expect(text(full)).toBe(
        `Error executing tool create_note: ${DISK_FULL} (ref ${errorRef(full)}); temporary failure, safe to retry`,
      );

      expect(await opened.readiness()).toEqual({
        ready: false,
        database: "cannot_write",
        reason:
          "the database cannot be written: the disk holding it is full, or the file reached its size limit; tools that only read still work",
      });
      expect(await opened.ready()).toBe(false);
      // Reads still work.
      const read = await client.callTool({ name: "get_note", arguments: { title: "before" } });
      expect(read.isError, text(read)).toBeFalsy();
      expect(await opened.readiness()).toMatchObject({ ready: false, database: "cannot_write" });

      for (const db of connections) db.pragma("max_page_count = 1000000");
      const after = await client.callTool({ name: "create_note", arguments: { title: "too-big", body: bigBody } });
      expect(after.isError, text(after)).toBeFalsy();
      expect(await opened.readiness()).toEqual({ ready: true });
    } finally {
      await close();
    }
  });

  it("a connection that cannot write (SQLITE_READONLY) says so, and readiness reports it", async () => {
    const opened = await openPacks({ db: join(dir, "ro.db"), packs: ["tickets"] });
    const { client, close } = await serve(opened);
    try {
      // Works as root too, where a chmod would not stop the writes.
      for (const db of connections) db.pragma("query_only = 1");
      const result = await client.callTool({ name: "create_ticket", arguments: { title: "t", body: "b" } });
      expect(result.isError).toBe(true);
      expect(result._meta?.["toolshed.dev/error"]).toMatchObject({
        kind: "tool",
        code: "failed_precondition",
        retryable: false,
      });
      expect(text(result)).toMatch(
        /^Error executing tool create_ticket: the database is read-only, so nothing was changed; tools that only read still work/,
      );
      expect(await opened.readiness()).toEqual({
        ready: false,
        database: "cannot_write",
        reason: "the database cannot be written: it is read-only for this process; tools that only read still work",
      });
    } finally {
      await close();
    }
  });

  it("a failed write is remembered for a minute at most, so an instance taken out of service comes back", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const opened = await openPacks({ db: join(dir, "held.db"), packs: ["notes"] });
      const { client, close } = await serve(opened);
      for (const db of connections) db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true })}`);
      await client.callTool({ name: "create_note", arguments: { title: "big", body: bigBody } });
      expect(await opened.readiness()).toMatchObject({ ready: false, database: "cannot_write" });
      vi.advanceTimersByTime(59_000);
      expect(await opened.readiness()).toMatchObject({ ready: false });
      vi.advanceTimersByTime(2_000);
      expect(await opened.readiness()).toEqual({ ready: true });
      await close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("a store opened read-only is ready without writing (no write failures to report)", async () => {
    const file = join(dir, "seeded.db");
    await (await openPacks({ db: file, packs: ["notes"], demo: true })).close();
    const opened = await openPacks({ db: file, packs: ["notes"], readOnly: true });
    expect(await opened.readiness()).toEqual({ ready: true });
    await opened.close();
    expect(await opened.readiness()).toEqual({ ready: false, reason: "the server is closing its database" });
  });
});
