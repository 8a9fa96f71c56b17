import { join } from "node:path";
import { MigrationError, openSqlite, runMigrations, StorageOpenError } from "@toolshed/storage";
import { forEachSqliteDriver } from "@toolshed/test-support";
import { describe, expect, it } from "vitest";
import { NOTES_MIGRATION_SCOPE, NOTES_SQLITE_MIGRATIONS } from "../src/sqlite/migrations.js";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import { steppingClock, tempDir } from "./helpers.js";
import { describeNotesStoreContract } from "./store-contract.js";

forEachSqliteDriver((driver) => {
  describeNotesStoreContract(`SqliteNotesStore on a temp file (${driver})`, async () => {
    const tmp = tempDir();
    const store = SqliteNotesStore.open(join(tmp.dir, "notes.db"), { now: steppingClock(), driver });
    return { store, cleanup: tmp.cleanup };
  });

  describeNotesStoreContract(`SqliteNotesStore in :memory: (${driver})`, async () => ({
    store: SqliteNotesStore.open(":memory:", { driver }),
    cleanup: () => {},
  }));
});

describe("SqliteNotesStore files", () => {
  it("keeps notes across close and reopen", async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, "nested", "folder", "notes.db");
    const first = SqliteNotesStore.open(file);
    await first.createNote({ title: "groceries", body: "milk, eggs", tags: ["home"] });
    await first.close();
    const second = SqliteNotesStore.open(file);
    expect(await second.getNote("groceries")).toMatchObject({ body: "milk, eggs", tags: ["home"], version: 1 });
    expect((await second.searchNotes("eggs", { limit: 5 })).map((h) => h.title)).toEqual(["groceries"]);
    await second.close();
    await second.close();
    tmp.cleanup();
  });

  it("upgrades a version 1 file in place: rows kept, search index built, idempotency table added", async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, "old.db");
    const old = openSqlite(file);
    expect(runMigrations(old, NOTES_MIGRATION_SCOPE, NOTES_SQLITE_MIGRATIONS.slice(0, 1))).toBe(1);
    old
      .prepare("INSERT INTO notes (id, title, body, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(
        7,
        "legacy plan",
        "migrate the archive before spring",
        3,
        "2024-01-01T00:00:00.000Z",
        "2024-02-01T00:00:00.000Z",
      );
    old.prepare("INSERT INTO note_tags (note_id, tag) VALUES (7, 'work')").run();
    old.close();

    const store = SqliteNotesStore.open(file);
    expect(await store.getNote("legacy plan")).toEqual({
      title: "legacy plan",
      body: "migrate the archive before spring",
      tags: ["work"],
      version: 3,
      created_at: "2024-01-01T00:00:00.000Z",
      updated_at: "2024-02-01T00:00:00.000Z",
    });
    expect(await store.searchNotes("archive", { limit: 5 })).toEqual([
      {
        title: "legacy plan",
        snippet: "migrate the **archive** before spring",
        updated_at: "2024-02-01T00:00:00.000Z",
      },
    ]);
    // Version 5 made the index again with prefix indexes: word starts still find the old notes.
    expect((await store.searchNotes("arch", { limit: 5 })).map((h) => h.title)).toEqual(["legacy plan"]);
    const created = await store.createNote({ title: "new", body: "x" }, { idempotencyKey: "k" });
    expect(await store.createNote({ title: "new", body: "x" }, { idempotencyKey: "k" })).toEqual(created);
    expect((await store.updateNote("legacy plan", { body: "done" }, { expectedVersion: 3 }))?.version).toBe(4);
    await store.close();

    const check = openSqlite(file);
    const versions = check
      .prepare("SELECT version FROM toolshed_migrations WHERE scope = ? ORDER BY version")
      .all(NOTES_MIGRATION_SCOPE) as Array<{ version: number }>;
    expect(versions.map((v) => v.version)).toEqual(NOTES_SQLITE_MIGRATIONS.map((m) => m.version));
    const fts = check.prepare("SELECT sql FROM sqlite_master WHERE name = 'notes_fts'").get() as { sql: string };
    expect(fts.sql).toContain("prefix='2 3 4'");
    check.close();
    tmp.cleanup();
  });

  it("refuses a file written by a newer release, and leaves it alone", async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, "future.db");
    SqliteNotesStore.open(file).close();
    const db = openSqlite(file);
    db.prepare("INSERT INTO toolshed_migrations (scope, version, name, applied_at) VALUES (?, 99, 'future', ?)").run(
      NOTES_MIGRATION_SCOPE,
      new Date().toISOString(),
    );
    db.close();
    expect(() => SqliteNotesStore.open(file)).toThrow(MigrationError);
    expect(() => SqliteNotesStore.open(file)).toThrow(
      `database ${file} has notes schema version 99, newer than this release knows (${NOTES_SQLITE_MIGRATIONS.length}); upgrade Toolshed to a release that knows it, or use another database`,
    );
    tmp.cleanup();
  });

  it("a path that cannot be a database fails with StorageOpenError", () => {
    const tmp = tempDir();
    expect(() => SqliteNotesStore.open(tmp.dir)).toThrow(StorageOpenError);
    tmp.cleanup();
  });

  it("two store instances on one file share notes and idempotency keys, also when racing", async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, "shared.db");
    const a = SqliteNotesStore.open(file);
    const b = SqliteNotesStore.open(file);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).createNote({ title: "shared", body: "once" }, { idempotencyKey: "same" }),
      ),
    );
    for (const result of results) expect(result).toEqual(results[0]);
    expect((await a.listNotes({ limit: 10 })).notes.map((n) => n.title)).toEqual(["shared"]);
    expect(await b.getNote("shared")).toEqual(results[0]);
    const error = await b.createNote({ title: "other", body: "x" }, { idempotencyKey: "same" }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^idempotency_key 'same' was already used with different arguments/);
    await a.close();
    await b.close();
    tmp.cleanup();
  });
});
