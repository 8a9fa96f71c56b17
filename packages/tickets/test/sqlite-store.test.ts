import { join } from "node:path";
import { MigrationError, openSqlite, runMigrations, StorageOpenError } from "@toolshed/storage";
import { forEachSqliteDriver } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteTicketsStore, TICKETS_SQLITE_MIGRATIONS } from "../src/index.js";
import { rowCounts, tempDir } from "./helpers.js";
import { describeTicketsStoreContract } from "./store-contract.js";

forEachSqliteDriver((driver) => {
  describeTicketsStoreContract(`SQLite file in a temp dir (${driver})`, async () => {
    const { dir, cleanup } = tempDir();
    return { store: SqliteTicketsStore.open(join(dir, "nested", "tickets.db"), { driver }), cleanup };
  });

  describeTicketsStoreContract(`SQLite :memory: (${driver})`, async () => ({
    store: SqliteTicketsStore.open(":memory:", { driver }),
    cleanup: () => {},
  }));
});

describe("SqliteTicketsStore files", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  function file(): string {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    return join(dir, "tickets.db");
  }

  it("upgrades a version-1 file in place: its tickets become searchable and ids go on", async () => {
    const path = file();
    const old = openSqlite(path);
    expect(runMigrations(old, "tickets", TICKETS_SQLITE_MIGRATIONS.slice(0, 1))).toBe(1);
    old
      .prepare("INSERT INTO tickets (title, body, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .run("Printer on fire", "Smoke from tray 2", "urgent", "2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z");
    old.close();

    const store = SqliteTicketsStore.open(path);
    try {
      const hits = await store.searchTickets({ text: "smoke", status: "open", limit: 10 });
      expect(hits).toEqual([
        {
          id: "T-1001",
          title: "Printer on fire",
          status: "open",
          priority: "urgent",
          updated_at: "2024-01-01T00:00:00.000Z",
          snippet: "**Smoke** from tray 2",
        },
      ]);
      expect((await store.createTicket({ title: "Next", body: "b", priority: "low" })).ticket.id).toBe("T-1002");
    } finally {
      await store.close();
    }
    const check = openSqlite(path);
    const versions = check
      .prepare("SELECT version FROM toolshed_migrations WHERE scope = 'tickets' ORDER BY version")
      .all();
    expect(versions).toEqual(TICKETS_SQLITE_MIGRATIONS.map((m) => ({ version: m.version })));
    check.close();
  });

  it("reopens a file with its data and does not migrate twice", async () => {
    const path = file();
    const first = SqliteTicketsStore.open(path);
    await first.createTicket({ title: "Kept", body: "across opens", priority: "normal" });
    await first.close();
    const second = SqliteTicketsStore.open(path);
    expect((await second.getTicket("T-1001")).title).toBe("Kept");
    await second.close();
  });

  it("refuses a file from a newer release, naming the versions", () => {
    const path = file();
    const db = openSqlite(path);
    runMigrations(db, "tickets", [...TICKETS_SQLITE_MIGRATIONS, { version: 9, name: "future", up: "SELECT 1" }]);
    db.close();
    expect(() => SqliteTicketsStore.open(path)).toThrow(MigrationError);
    expect(() => SqliteTicketsStore.open(path)).toThrow(
      `database ${path} has tickets schema version 9, newer than this release knows (${TICKETS_SQLITE_MIGRATIONS.length}); upgrade Toolshed to a release that knows it, or use another database`,
    );
  });

  it("says what works when the path cannot be created", () => {
    const path = file();
    const blocker = openSqlite(path);
    blocker.close();
    const inside = join(path, "inside-a-file.db");
    expect(() => SqliteTicketsStore.open(inside)).toThrow(StorageOpenError);
    expect(() => SqliteTicketsStore.open(inside)).toThrow(
      /^cannot create the folder for database .+; choose a writable path$/,
    );
  });

  it("keeps racing idempotent creates from two store instances on one file to one ticket", async () => {
    const path = file();
    const a = SqliteTicketsStore.open(path);
    const b = SqliteTicketsStore.open(path);
    try {
      const args = { title: "Shared", body: "two processes", priority: "high" as const };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).createTicket(args, { idempotencyKey: "shared-key" }),
        ),
      );
      for (const r of results) expect(r).toEqual(results[0]);
      const raw = openSqlite(path);
      expect(rowCounts(raw)).toEqual({ tickets: 1, comments: 0, idempotency: 1, fts: 1 });
      raw.close();
      expect(await b.getTicket("T-1001")).toMatchObject({ title: "Shared" });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("can be closed twice", async () => {
    const store = SqliteTicketsStore.open(":memory:");
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
  });
});
